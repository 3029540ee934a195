// What a live reply shows while a tool runs: one line naming the tool and what it acts on. The tool's
// name and arguments come from the model (and an MCP server): shown visibly (control, bidi and
// zero-width characters escaped), never as formatting, and short.
import { clipText, visibleLine } from '../surface/index.ts';

/** A tool call as it starts. */
interface ToolStarted {
  tool: string;
  args: Record<string, unknown>;
}

const MAX_SUBJECT = 80;

/** e.g. "🔧 shell: ls -la …", "🌐 fetching example.com …". */
export function toolProgressLine({ tool, args }: ToolStarted): string {
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
