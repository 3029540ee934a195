// Small helpers of the Surface contract: the texts it sends and what the model saw.
import { contentText } from '../fakes/llm-wire.ts';
import type { FakeLlm } from '../fakes/llm-server.ts';

/** Moved to tests/helpers/eventually.ts; re-exported for the test files that still import it from here. */
export { eventually } from '../helpers/eventually.ts';

/** Arabic with harakat, emoji with a skin tone and a ZWJ family, a flag, Hebrew with points, RLM marks, Arabic-Indic digits. */
export const UNICODE_SAMPLE = 'مَرْحَبًا بِكُمْ فِي كَازْمَا 👋🏽 👨‍👩‍👧 🇸🇦 — שָׁלוֹם \u200F(RTL)\u200F ١٢٣';

/** The text of the last user message the fake model received. */
export function lastUserText(llm: FakeLlm): string | undefined {
  const messages = llm.requests.at(-1)?.messages ?? [];
  const user = [...messages].reverse().find((m) => m.role === 'user');
  return user ? contentText(user.content) : undefined;
}

/**
 * A Markdown reply about 2.5 × `limit` long: numbered paragraphs of two lines, each with one bold
 * span. Returns the visible lines and bold spans a correct split must show, in order.
 */
export function longReply(limit: number): { markdown: string; lines: string[]; bold: string[]; lastLine: string } {
  const paragraphs: string[] = [];
  const lines: string[] = [];
  const bold: string[] = [];
  let size = 0;
  for (let n = 1; size < limit * 2.5; n++) {
    const filler = `lorem ipsum dolor sit amet ${n} `.repeat(8).trim();
    paragraphs.push(`Paragraph ${n}: **bold ${n}** ${filler} end ${n}.\nSecond line of paragraph ${n}.`);
    lines.push(`Paragraph ${n}: bold ${n} ${filler} end ${n}.`, `Second line of paragraph ${n}.`);
    bold.push(`bold ${n}`);
    size += paragraphs.at(-1)!.length + 2;
  }
  return { markdown: paragraphs.join('\n\n'), lines, bold, lastLine: lines.at(-1)! };
}
