// Arabic time phrases, read as the English ones the date parser knows: Arabic-Indic digits become ASCII,
// diacritics and tatweel go, and the common words map one to one ("بعد ١٠ دقائق" → "in 10 minutes",
// "غدًا الساعة ٩ صباحًا" → "tomorrow at 9 am"). Token by token, so a caller can map a match back to
// the person's own words.

const WORDS: Readonly<Record<string, string>> = {
  بعد: 'in',
  خلال: 'in',
  ثانية: 'seconds',
  ثانيه: 'seconds',
  ثوان: 'seconds',
  ثواني: 'seconds',
  ثوانٍ: 'seconds',
  دقيقة: 'minutes',
  دقيقه: 'minutes',
  دقائق: 'minutes',
  دقايق: 'minutes',
  ساعة: 'hours',
  ساعه: 'hours',
  ساعات: 'hours',
  يوم: 'days',
  أيام: 'days',
  ايام: 'days',
  أسبوع: 'weeks',
  اسبوع: 'weeks',
  أسابيع: 'weeks',
  اسابيع: 'weeks',
  غدا: 'tomorrow',
  غداً: 'tomorrow',
  بكرة: 'tomorrow',
  بكره: 'tomorrow',
  اليوم: 'today',
  الساعة: 'at',
  الساعه: 'at',
  صباحا: 'am',
  صباح: 'am',
  ص: 'am',
  مساء: 'pm',
  مساءا: 'pm',
  م: 'pm',
  ظهرا: 'pm',
  عصرا: 'pm',
};

/** Two of a unit in one word ("دقيقتين" = two minutes). */
const DUALS: Readonly<Record<string, string>> = {
  ثانيتين: '2 seconds',
  دقيقتين: '2 minutes',
  دقيقتان: '2 minutes',
  ساعتين: '2 hours',
  ساعتان: '2 hours',
  يومين: '2 days',
  يومان: '2 days',
};

/** Arabic-Indic (U+0660–0669) and Persian (U+06F0–06F9) digits to ASCII. */
export function asciiDigits(text: string): string {
  return text.replace(/[\u0660-\u0669\u06F0-\u06F9]/g, (d) => String(d.charCodeAt(0) & 0xf));
}

/** Harakat, tanween and tatweel carry no meaning for a time. */
function bare(word: string): string {
  return word.replace(/[\u064B-\u0652\u0640]/g, '');
}

/** One token of the input: as written, and as the parser reads it. */
export interface Token {
  original: string;
  read: string;
}

/**
 * Splits on whitespace and reads each token; a token that is not a known Arabic form is kept as is (digits made ASCII).
 */
export function readTokens(text: string): Token[] {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((original) => {
      const plain = bare(asciiDigits(original));
      const read = DUALS[plain] ?? WORDS[plain] ?? WORDS[plain.replace(/^و/, '')] ?? plain;
      return { original, read };
    });
}
