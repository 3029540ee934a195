// A reply shown while the model writes it is cut anywhere: inside a code block, between the two `**` of
// a bold word. Each adapter renders canonical Markdown to its platform's dialect; an unclosed fence would
// render the rest of the draft as code, or be refused (Telegram HTML). So the core closes what the cut
// left open, once, for every platform; the final answer is rendered from the whole text as always.

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Paired inline markers closed when the cut leaves them open (inline code, `` ` ``, is handled first). */
const PAIRED_MARKERS = ['**', '~~'] as const;

/**
 * `text` (a prefix of a Markdown answer) with whatever it leaves open closed: an open code fence gets
 * its closing fence, and on the last line outside code an odd count of `**`, `~~` or `` ` `` gets one
 * more. Text that is complete comes back unchanged.
 */
export function closePartial(text: string): string {
  const lines = text.split('\n');
  let fence: string | undefined;
  for (const line of lines) {
    const marker = FENCE.exec(line)?.[1];
    if (!marker) continue;
    if (fence === undefined) fence = marker;
    else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
  }
  if (fence !== undefined) return `${text}\n${fence}`;
  // A marker the cut left at the very end opens nothing yet: dropped, not closed (`**` + `**` is no bold).
  const bare = text.replace(/(\*\*|~~|`)+$/u, '');
  if (bare !== text) return closePartial(bare);
  return text + closingInline(lines.at(-1) ?? '');
}

/** The markers `line` opens and does not close, in closing order. */
function closingInline(line: string): string {
  let rest = line;
  // Inline code first: markers inside it are text, not formatting.
  const ticks = (rest.match(/`/g) ?? []).length;
  const openCode = ticks % 2 === 1;
  rest = rest.replace(/`[^`]*`/g, '');
  if (openCode) rest = rest.slice(0, rest.lastIndexOf('`'));
  // Each marker left open, closed innermost first: the one opened last closes first.
  const open = PAIRED_MARKERS.filter((marker) => (rest.split(marker).length - 1) % 2 === 1).sort(
    (a, b) => rest.lastIndexOf(b) - rest.lastIndexOf(a),
  );
  return (openCode ? '`' : '') + open.join('');
}
