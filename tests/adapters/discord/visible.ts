// What a person sees of a Discord message's Markdown, for assertions: the text without formatting
// characters, and the spans shown in bold. Covers what Kazma sends: **bold**, *italic*, `code`, fenced
// code blocks (their fence lines are not shown) and backslash escapes.

const PUNCTUATION = /[!-/:-@[-`{-~]/;

/** Visible text and bold spans of Discord Markdown. */
export function visible(markdown: string): { text: string; bold: string[] } {
  const out: string[] = [];
  const bold: string[] = [];
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^ {0,3}```/.test(line)) {
      inFence = !inFence;
      continue;
    }
    out.push(inFence ? line : inline(line, bold));
  }
  return { text: out.join('\n'), bold };
}

function inline(line: string, bold: string[]): string {
  let text = '';
  let boldStart = -1;
  let italic = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && PUNCTUATION.test(line[i + 1] ?? '')) {
      text += line[++i];
    } else if (line.startsWith('**', i)) {
      if (boldStart === -1) boldStart = text.length;
      else {
        bold.push(text.slice(boldStart));
        boldStart = -1;
      }
      i++;
    } else if (c === '*') {
      // An italic marker (paired on the line) is not shown; a lone asterisk is.
      if (italic) italic = false;
      else if (line.indexOf('*', i + 1) !== -1) italic = true;
      else text += c;
    } else if (c === '`') {
      const end = line.indexOf('`', i + 1);
      if (end === -1) text += c;
      else {
        text += line.slice(i + 1, end);
        i = end;
      }
    } else {
      text += c;
    }
  }
  return text;
}
