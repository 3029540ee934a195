// When a person means: "in 10 seconds", "in 30m", "tomorrow 9am", "2026-12-24 18:00", "بعد ١٠ دقائق",
// read in the configured zone (`time.zone`) into an absolute instant, with the rest of the words kept
// as what to say or do. A time in the past, or a date whose day and month could be swapped, is refused.
// A clock time ("2027-07-15 09:00", "tomorrow 9am", "in 3 days") is read with the zone's offset on that
// date (zoned.ts); "in 2 hours" is elapsed time; a zone in the words ("09:00 UTC") wins.
import { KazmaError } from '../errors.ts';
import { findAnchor } from './anchor-phrase.ts';
import { readTokens } from './arabic.ts';
import { zonedInstant, zoneOffsetMs } from './zoned.ts';

/** The words did not name a usable time; the message says why and how to write one. */
export class WhenError extends KazmaError {
  constructor(message: string) {
    super('when_invalid', message);
  }
}

/** A time read from a person's words. */
export interface ParsedWhen {
  /** The absolute instant (UTC). */
  at: Date;
  /** The words that named the time, as written. */
  words: string;
  /** Everything else, as written (the reminder's text). */
  rest: string;
}

const EXAMPLES = '"in 10 minutes", "tomorrow 9am", "2026-12-24 18:00" or "بعد ١٠ دقائق"';

/** Short units chrono does not read ("30m", "2h", "10s", "1d"). */
function expandUnits(word: string): string {
  const match = /^(\d+)(s|sec|secs|m|min|mins|h|hr|hrs|d)$/i.exec(word);
  if (!match) return word;
  const unit = {
    s: 'seconds',
    sec: 'seconds',
    secs: 'seconds',
    m: 'minutes',
    min: 'minutes',
    mins: 'minutes',
    h: 'hours',
    hr: 'hours',
    hrs: 'hours',
    d: 'days',
  }[match[2]!.toLowerCase()]!;
  return `${match[1]} ${unit}`;
}

/**
 * Reads the time in `text`. `zone` is an IANA zone (`Asia/Kuwait`); `now` the reference instant.
 * Throws {@link WhenError} when there is no time, the time is not in the future, or a numeric date
 * is ambiguous (`03/04`: March 4th or April 3rd?).
 */
export async function parseWhen(text: string, options: { now: Date; zone: string }): Promise<ParsedWhen> {
  // "the day before my exam at 9am" is anchored to memory first (anchor.ts); read here, it would be today at 9.
  const anchor = findAnchor(text);
  if (anchor)
    throw new WhenError(
      `"${text.slice(anchor.index, anchor.nouns[0]!.end)}" names a day by something remembered, ` +
        'and no date for it was found',
    );
  // Loaded on the first reminder, not at start (chrono.ts says why through a file of ours).
  const { parseTimes } = await import('./chrono.ts');
  const tokens = readTokens(text).map((t) => ({ ...t, read: expandUnits(t.read) }));
  // The text the parser reads, and where each token starts in it, to map a match back to the original words.
  let read = '';
  const starts: number[] = [];
  for (const token of tokens) {
    starts.push(read.length + (read ? 1 : 0));
    read += (read ? ' ' : '') + token.read;
  }
  // chrono takes one fixed offset: today's, so "today" and "tomorrow" are the zone's days. It is only right
  // for the instants chrono fixes itself (elapsed time, a zone in the words); a clock time is read below.
  const today = zoneOffsetMs(options.zone, options.now.getTime()) / 60_000;
  const [result] = parseTimes(read, { instant: options.now, timezone: today }, { forwardDate: true });
  if (!result) throw new WhenError(`I could not find a time in "${text}"; write it like ${EXAMPLES}`);
  if (/\b(\d{1,2})[/.-](\d{1,2})\b/.test(result.text) && !/\d{4}/.test(result.text)) {
    const [, a, b] = /\b(\d{1,2})[/.-](\d{1,2})\b/.exec(result.text)!;
    if (Number(a) <= 12 && Number(b) <= 12 && a !== b)
      throw new WhenError(
        `"${result.text}" could be day/month or month/day; write the date as YYYY-MM-DD (e.g. 2026-12-24)`,
      );
  }
  const start = result.start;
  const at = start.isCertain('timezoneOffset')
    ? start.date()
    : zonedInstant(
        {
          year: start.get('year')!,
          month: start.get('month')!,
          day: start.get('day')!,
          hour: start.get('hour')!,
          minute: start.get('minute')!,
          second: start.get('second')!,
          millisecond: start.get('millisecond')!,
        },
        options.zone,
      );
  if (at.getTime() <= options.now.getTime())
    throw new WhenError(`"${result.text}" is ${at.toISOString()} — that is not in the future`);
  const end = result.index + result.text.length;
  const inMatch = (i: number) => starts[i]! < end && starts[i]! + tokens[i]!.read.length > result.index;
  return {
    at,
    words: tokens
      .filter((_, i) => inMatch(i))
      .map((t) => t.original)
      .join(' '),
    rest: tokens
      .filter((_, i) => !inMatch(i))
      .map((t) => t.original)
      .join(' ')
      .trim(),
  };
}
