// What a Slack user sees of a message: mrkdwn rendered to plain text (markers removed, links shown by
// label, `&lt;` unescaped) plus the spans shown bold, and the button labels. Slack opens a `*bold*`
// span only after a non-word character and closes it before one, so `write_file` stays as written.
import type { Block } from '../../fakes/slack/limits.ts';

export interface Visible {
  text: string;
  bold: string[];
}

const unescapeHtml = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const SPAN = (m: string) => new RegExp(`(^|[^\\w${m}])\\${m}(?=\\S)([^${m}\\n]*?\\S)\\${m}(?=$|[^\\w${m}])`, 'g');

/** One mrkdwn text as shown: code blocks verbatim, everything else without formatting markers. */
export function visibleMrkdwn(mrkdwn: string): Visible {
  const bold: string[] = [];
  const pieces = mrkdwn.split(/(```[\s\S]*?```)/);
  const text = pieces
    .map((piece) => {
      if (piece.startsWith('```') && piece.endsWith('```') && piece.length >= 6)
        return unescapeHtml(piece.slice(3, -3)).replace(/\u200b/g, '');
      let s = piece.replace(/^> /gm, '');
      s = s.replace(/<([^<>|\n]*)(?:\|([^<>\n]*))?>/g, (_a, target: string, label?: string) => label ?? target);
      s = s.replace(/`([^`\n]+)`/g, '$1');
      s = s.replace(SPAN('*'), (_a, pre: string, inner: string) => {
        bold.push(unescapeHtml(inner));
        return pre + inner;
      });
      s = s.replace(SPAN('_'), '$1$2').replace(SPAN('~'), '$1$2');
      return unescapeHtml(s);
    })
    .join('');
  return { text, bold };
}

/** A stored message (or ephemeral) as shown: its blocks when it has them, else its text. */
export function visibleMessage(m: { text: string; blocks?: Block[] }): Visible & { buttons: string[] } {
  const parts: Visible[] = [];
  const buttons: string[] = [];
  const textOf = (t: unknown): Visible => {
    const o = t as { type?: string; text?: string } | undefined;
    return o?.type === 'mrkdwn' ? visibleMrkdwn(o.text ?? '') : { text: o?.text ?? '', bold: [] };
  };
  for (const block of m.blocks ?? []) {
    if (block.type === 'header') parts.push({ text: textOf(block.text).text, bold: [textOf(block.text).text] });
    if (block.type === 'section') {
      if (block.text) parts.push(textOf(block.text));
      for (const field of (block.fields as unknown[] | undefined) ?? []) parts.push(textOf(field));
    }
    if (block.type === 'context')
      for (const element of (block.elements as unknown[]) ?? []) parts.push(textOf(element));
    if (block.type === 'actions')
      for (const element of (block.elements as Block[]) ?? []) buttons.push(textOf(element.text).text);
  }
  if (!m.blocks?.length) parts.push(visibleMrkdwn(m.text));
  return { text: parts.map((p) => p.text).join('\n'), bold: parts.flatMap((p) => p.bold), buttons };
}
