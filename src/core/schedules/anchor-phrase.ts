// The words that name a day by something remembered: "the day before my exam", "two days after the
// launch", "on the day of my exam", "قبل امتحاني بيوم". Found here, anchored in anchor.ts; parseWhen
// refuses them, so no path reads "at 9am" out of them and invents the day.
import { asciiDigits } from './arabic.ts';

/** A phrase that names a day by something remembered, as found in the words. */
export interface AnchorPhrase {
  /** Where the phrase starts, where the thing it refers to starts ("my exam"), and its name ("exam"). */
  index: number;
  thingStart: number;
  /** The thing's words ("exam"), longest first tried; the end of each in the text. */
  nouns: { words: string; end: number }[];
  /** Days from the remembered day: -1 for "the day before". */
  days: number;
  /** The Arabic form carries its offset after the thing; this is where that suffix ends. */
  suffixEnd?: number;
}

const COUNTS: Readonly<Record<string, number>> = {
  the: 1,
  a: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};
const EN = new RegExp(
  String.raw`\b(?:(?:on\s+)?the\s+day\s+of|(the|a|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,3})\s+` +
    String.raw`(days?|weeks?)\s+(before|after))\s+(?:my|the|our)\s+`,
  'iu',
);
// "قبل امتحاني بيوم" (a day before my exam), "بعد الإطلاق بيومين" (two days after the launch).
const AR = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(قبل|بعد)\s+((?:[^\s\d]+\s+){0,2}?[^\s\d]+)\s+ب\s*` +
    String.raw`(يوم|يومين|أسبوع|اسبوع|أسبوعين|اسبوعين|(\d{1,3})\s*(?:أيام|ايام|يوم|أسابيع|اسابيع))(?![\p{L}\p{N}])`,
  'u',
);
const AR_DAYS: Readonly<Record<string, number>> = { يوم: 1, يومين: 2, أسبوع: 7, اسبوع: 7, أسبوعين: 14, اسبوعين: 14 };
/** Words that end the thing's name: "my exam at 9am", "the launch to ship". */
const STOP = /^(?:at|to|on|by|for|from|in|and|that|remind|me|-|–|—)$/iu;
/** The anchor phrase in `text`, if any (English or Arabic). */
export function findAnchor(text: string): AnchorPhrase | undefined {
  const en = EN.exec(text);
  if (en) {
    const [, count, unit, direction] = en;
    const days = count ? (COUNTS[count.toLowerCase()] ?? Number(count)) * (/^w/i.test(unit!) ? 7 : 1) : 0;
    const nounStart = en.index + en[0].length;
    const thingStart = en.index + en[0].search(/(?:my|the|our)\s+$/iu);
    const nouns: AnchorPhrase['nouns'] = [];
    const pattern = /\S+/gu;
    pattern.lastIndex = nounStart;
    for (let m = pattern.exec(text); m && nouns.length < 4; m = pattern.exec(text)) {
      const word = m[0].replace(/[,.;:!?]+$/u, '');
      if (word === '' || STOP.test(word) || /\d/u.test(word)) break;
      nouns.push({ words: text.slice(nounStart, m.index + word.length), end: m.index + word.length });
      if (word !== m[0]) break;
    }
    const sign = direction === 'before' ? -1 : 1;
    if (nouns.length > 0) return { index: en.index, thingStart, nouns: nouns.reverse(), days: sign * days };
  }
  const ar = AR.exec(asciiDigits(text));
  if (!ar) return undefined;
  const [, direction, noun, unit, count] = ar;
  const days = count ? Number(count) * (/أسابيع|اسابيع/u.test(unit!) ? 7 : 1) : AR_DAYS[unit!]!;
  const nounStart = ar.index + ar[0].indexOf(noun!, direction!.length);
  return {
    index: ar.index,
    thingStart: nounStart,
    nouns: [{ words: noun!, end: nounStart + noun!.length }],
    days: direction === 'قبل' ? -days : days,
    suffixEnd: ar.index + ar[0].length,
  };
}
