// Dates anchored to memory: "the day before my exam at 9am", "two days after the launch", "قبل امتحاني
// بيوم" name a day only through something the person told Kazma. The remembered note is found by its
// words, its date read (in time.zone, from the day the note was written), the offset applied, and the
// words rewritten with the absolute date and where it came from. Nothing remembered, or notes that
// disagree: a question, and nothing scheduled. Never a guessed date.
import { findAnchor } from './anchor-phrase.ts';
import { readTokens } from './arabic.ts';
import { WhenError, parseWhen } from './when.ts';
import { zoneOffsetMs } from './zoned.ts';

/** A remembered note, as anchoring reads it. */
export interface DatedNote {
  id: string;
  text: string;
  createdAt: Date;
}

/** The current notes of the person (and chat) that hold every content word of `words`. */
export type NotesAbout = (words: string) => Promise<DatedNote[]>;

/** What anchoring made of a time: not anchored, anchored (the absolute words), or a question to ask. */
export type Anchoring =
  | { kind: 'plain' }
  | { kind: 'anchored'; words: string; at: Date; from: string; said: string }
  | { kind: 'ask'; question: string };

const AR_MONTHS: Readonly<Record<string, string>> = {
  يناير: 'January',
  فبراير: 'February',
  مارس: 'March',
  أبريل: 'April',
  ابريل: 'April',
  مايو: 'May',
  يونيو: 'June',
  يوليو: 'July',
  أغسطس: 'August',
  اغسطس: 'August',
  سبتمبر: 'September',
  أكتوبر: 'October',
  اكتوبر: 'October',
  نوفمبر: 'November',
  ديسمبر: 'December',
};

/** The calendar day a note names, read from the day it was written in `zone`; undefined when it names none. */
async function dayOf(note: DatedNote, zone: string): Promise<string | undefined> {
  const { parseTimes } = await import('./chrono.ts');
  const read = readTokens(note.text)
    .map((t) => AR_MONTHS[t.read] ?? t.read)
    .join(' ');
  const offset = zoneOffsetMs(zone, note.createdAt.getTime()) / 60_000;
  const found = parseTimes(read, { instant: note.createdAt, timezone: offset }, { forwardDate: true }).find(
    (r) => r.start.isCertain('day') && r.start.isCertain('month'),
  );
  if (!found) return undefined;
  const s = found.start;
  return ymd(Date.UTC(s.get('year')!, s.get('month')! - 1, s.get('day')!));
}

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const quote = (text: string) => `"${text.length > 80 ? `${text.slice(0, 79)}…` : text}"`;

/** `YYYY-MM-DD HH:mm` on the zone's clock: words parseWhen reads back as the same instant. */
function wallWords(at: Date, zone: string): string {
  const local = new Date(at.getTime() + zoneOffsetMs(zone, at.getTime()));
  return `${local.toISOString().slice(0, 10)} ${local.toISOString().slice(11, 16)}`;
}

/**
 * Anchors the time in `text` to memory (see the file's header). `plain` when the words name no
 * remembered thing; they are then read as before. Throws {@link WhenError} for a time that is not usable
 * (in the past, say) once anchored.
 */
export async function anchorWhen(
  text: string,
  options: { now: Date; zone: string; notesAbout?: NotesAbout },
): Promise<Anchoring> {
  const phrase = findAnchor(text);
  if (!phrase) return { kind: 'plain' };
  const thing = text.slice(phrase.thingStart, phrase.nouns.at(-1)!.end);
  for (const noun of phrase.nouns) {
    const notes = options.notesAbout ? await options.notesAbout(noun.words) : [];
    const dated: { note: DatedNote; day: string }[] = [];
    for (const note of notes) {
      const day = await dayOf(note, options.zone);
      if (day) dated.push({ note, day });
    }
    if (dated.length === 0) continue;
    const days = [...new Set(dated.map((d) => d.day))];
    if (days.length > 1) {
      const told = dated.map((d) => `${d.day} (${d.note.id}: ${quote(d.note.text)})`).join(', ');
      return {
        kind: 'ask',
        question: `My notes disagree on when "${noun.words}" is: ${told}. Which date is meant? Nothing is scheduled.`,
      };
    }
    const [year, month, day] = days[0]!.split('-').map(Number) as [number, number, number];
    const date = ymd(Date.UTC(year, month - 1, day + phrase.days));
    const end = phrase.suffixEnd ?? noun.end;
    const spliced = `${text.slice(0, phrase.index)}${date}${phrase.suffixEnd ? '' : ' '}${text.slice(end)}`.trim();
    const when = await parseWhen(spliced, options);
    if (ymd(when.at.getTime() + zoneOffsetMs(options.zone, when.at.getTime())) !== date)
      throw new WhenError(
        `"${when.words}" is not on ${date}; write the time right after "${text.slice(phrase.index, end)}"`,
      );
    const { note } = dated[0]!;
    return {
      kind: 'anchored',
      words: `${wallWords(when.at, options.zone)}${when.rest ? ` ${when.rest}` : ''}`,
      at: when.at,
      said: text.slice(phrase.index, end),
      from: `${days[0]} from ${note.id} ${quote(note.text)}`,
    };
  }
  return {
    kind: 'ask',
    question:
      `Which date is "${thing}"? I remember nothing that says when it is, so nothing is scheduled. ` +
      `Tell me the date (e.g. 2027-01-14), or tell me when ${thing} is and ask again.`,
  };
}
