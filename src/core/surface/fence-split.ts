// Splitting Markdown-like text (Discord Markdown, Slack mrkdwn) whose code blocks are ``` fences.
// Cutting inside a block without repair would leave the rest of the chunk unfenced and the next
// chunk's prose rendered as code; so a chunk that ends inside a block closes it, and the next chunk
// reopens it with the same opening line (and language). The cost of that repair counts against the
// limit, so every chunk, repairs included, fits.
import { TextCutter, type Cut } from './text-split.ts';

/** A fenced block as opened by one line: its marker (```` ``` ```` or `~~~`, maybe longer) and info. */
interface Block {
  marker: string;
  info: string;
  lineStart: number;
  lineEnd: number;
}

/** One fence line and whether a block is open after it. */
interface FenceLine {
  start: number;
  end: number;
  after: Block | null;
}

// A fence is three or more backticks or tildes. Indented any amount: Discord and Slack take ``` as a
// fence wherever it stands, so the block of a nested list item (its fence indented under the item) is
// a block to them, and must be closed and reopened like any other. A backtick fence's info string
// cannot contain a backtick (so "```a```" on one line is inline, not a fence).
const OPENER = /^[ \t]*(`{3,}|~{3,})(.*)$/;
const CLOSER = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;
const FENCE_LINE = /^[ \t]*(?:`{3,}|~{3,})[^\n]*$/gm;

/** Every fence line of `text`, in order, with the block state after each. */
function scanFences(text: string): FenceLine[] {
  const lines: FenceLine[] = [];
  let open: Block | null = null;
  for (let start = 0; start <= text.length; ) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(start, end);
    if (open) {
      const m = CLOSER.exec(line);
      if (m?.[1] && m[1][0] === open.marker[0] && m[1].length >= open.marker.length) {
        open = null;
        lines.push({ start, end, after: null });
      }
    } else {
      const m = OPENER.exec(line);
      if (m?.[1] && !(m[1][0] === '`' && m[2]?.includes('`'))) {
        open = { marker: m[1], info: (m[2] ?? '').trim(), lineStart: start, lineEnd: end };
        lines.push({ start, end, after: open });
      }
    }
    if (nl === -1) break;
    start = nl + 1;
  }
  return lines;
}

/** The block open at position `x`: the state after the last fence line that starts before `x`. */
function blockAt(lines: readonly FenceLine[], x: number): Block | null {
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lines[mid]!.start < x) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : lines[lo - 1]!.after;
}

/**
 * Splits `text` into chunks of at most `limit` UTF-16 units, preferring paragraph breaks, then line
 * breaks, then spaces, never cutting a grapheme cluster or an atom (see {@link TextCutter}). A chunk that
 * ends inside a fenced block gets a closing fence, and the next chunk starts with the block's opening
 * line again, e.g. ```` ```ts ````. Returns `[]` for empty text.
 * @example splitFenced('```js\na()\nb()\n```', 14) // ['```js\na()\n```', '```js\nb()\n```']
 */
export function splitFenced(text: string, limit: number, atoms: readonly RegExp[] = []): string[] {
  const cutter = new TextCutter(text, [...atoms, FENCE_LINE]);
  const fences = scanFences(text);

  // Cut within `budget`. A cut right after an opening fence would leave an empty block at the chunk's
  // end: cut before the fence line instead or, when the fence starts the chunk, inside its first line.
  const place = (pos: number, budget: number): { cut: Cut; open: Block | null } => {
    const cut = cutter.cut(pos, budget);
    const open = cut.kind === 'end' ? null : blockAt(fences, cut.end);
    if (!open || cut.end > open.lineEnd) return { cut, open };
    const body = open.lineEnd + 1;
    const moved =
      open.lineStart - pos >= 2 ? cutter.cut(pos, open.lineStart - pos) : cutter.cut(body, budget - (body - pos));
    return { cut: moved, open: moved.kind === 'end' ? null : blockAt(fences, moved.end) };
  };

  const chunks: string[] = [];
  for (let pos = 0; pos < text.length; ) {
    const carried = blockAt(fences, pos);
    // All that is left of the carried block is its closing fence: the chunk before closed it already,
    // and alone it would open an empty block.
    const closing = carried && fences.find((f) => f.start === pos && f.after === null);
    if (closing) {
      pos = closing.end;
      while (text[pos] === '\n') pos++;
      continue;
    }
    const prefix = carried ? `${carried.marker}${carried.info}\n` : '';
    const budget = limit - prefix.length;
    let { cut, open } = place(pos, budget);
    if (open && prefix.length + (cut.end - pos) + 1 + open.marker.length > limit) {
      ({ cut, open } = place(pos, budget - 1 - open.marker.length));
    }
    if (open) {
      // The block's own closing fence follows the cut: take it instead of adding one, when it fits.
      const closing = fences.find((f) => f.start === cut.next && f.after === null);
      if (closing && prefix.length + (closing.end - pos) <= limit) {
        let next = closing.end;
        while (text[next] === '\n') next++;
        cut = { end: closing.end, next, kind: cut.kind };
        open = null;
      }
    }
    chunks.push(prefix + text.slice(pos, cut.end) + (open ? `\n${open.marker}` : ''));
    pos = cut.next;
  }
  return chunks;
}
