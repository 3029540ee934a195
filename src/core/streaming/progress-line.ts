// What a live reply shows while a tool runs: one line naming the tool and what it acts on. The tool's
// name and arguments come from the model (and an MCP server): shown visibly (control, bidi and
// zero-width characters escaped), never as formatting, and short — and, as on a card, with actual
// secrets (configured values, keys by their form) masked.
import { maskSecrets } from '../secrets/index.ts';
import { clipText, visibleLine } from '../surface/index.ts';

/** A tool call as it starts. */
export interface ToolStarted {
  tool: string;
  args: Record<string, unknown>;
}

const MAX_SUBJECT = 80;

/** e.g. "🔧 shell: ls -la …", "🌐 fetching example.com …". */
export function toolProgressLine(started: ToolStarted, secrets: readonly string[] = []): string {
  const { tool } = started;
  // As the approval card masks them (core/approvals/card.ts): by value, never a field by its name.
  const args = maskSecrets(started.args, { secrets, byName: false });
  if (tool === 'web_fetch' && typeof args.url === 'string') return `🌐 fetching ${plain(hostOf(args.url))} …`;
  const subject = Object.values(args).find((value): value is string => typeof value === 'string');
  return subject === undefined ? `🔧 ${plain(tool)} …` : `🔧 ${plain(tool)}: ${plain(subject)} …`;
}

/** One visible line with no Markdown in it: backticks, stars and the like would format the rest. */
function plain(text: string): string {
  const line = visibleLine(text.replace(/\s+/g, ' ')).replace(/[`*~[\]<>|\\]/g, ' ');
  return clipText(line.trim(), MAX_SUBJECT);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
