// The forms a word is matched under, so "exam" finds "exams" and "امتحاني" finds "الامتحان": a word
// is normalised (Arabic diacritics and tatweel dropped, alef/ya/ta-marbuta/hamza-seat forms folded,
// Arabic-Indic digits read as 0–9), then lightly stemmed — English plural and verb endings, Arabic
// clitics (و ف ب ل ك ال before, pronoun and plural endings after, a present-tense letter before a verb).
// A light stemmer errs both ways, so a word keeps every form it may be under (itself and each stripped
// variant) and two words match when they share one. A stripped form keeps at least three letters: shorter
// ones are root fragments that would match unrelated words ("اخت" is not "اخ").

const DIACRITICS = /[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]/g;
const FOLDS: Record<string, string> = { أ: 'ا', إ: 'ا', آ: 'ا', ٱ: 'ا', ى: 'ي', ة: 'ه', ؤ: 'و', ئ: 'ي' };
const FOLDED = new RegExp(`[${Object.keys(FOLDS).join('')}]`, 'g');
/** Arabic-Indic (U+0660–0669) and Eastern Arabic-Indic (U+06F0–06F9) digits. */
const INDIC_DIGITS = /[\u0660-\u0669\u06f0-\u06f9]/g;
const ARABIC = /[\u0600-\u06ff]/;

/** The conjunction, then the preposition, then the article a word may carry (folded forms). */
const AR_CONJUNCTIONS = ['و', 'ف'];
const AR_PREPOSITIONS = ['ب', 'ل', 'ك'];
const AR_ARTICLES = ['ال', 'ل'];
/** Present-tense letters of a verb ("اشرب", "يسكن", "تنتهي", "نسافر") and the future's "س". */
const AR_VERB_PREFIXES = ['ا', 'ي', 'ت', 'ن', 'سي', 'ست', 'سن', 'سا'];
/** Pronoun, dual and plural endings, longest first (folded: ة is ه). */
const AR_SUFFIXES = ['كما', 'هما', 'كم', 'كن', 'هم', 'هن', 'نا', 'ها', 'ات'];
const AR_SHORT_SUFFIXES = ['ان', 'ون', 'ين', 'يه', 'ه', 'ي', 'ك'];

/** `word` (lowercased) with its script's variant letters folded to one form. */
export function normalizeWord(word: string): string {
  return word
    .replace(DIACRITICS, '')
    .replace(FOLDED, (c) => FOLDS[c]!)
    .replace(INDIC_DIGITS, (d) => String((d.codePointAt(0)! - 0x660) % 0x90));
}

/** Every form `word` (one lowercased word) is matched under: its normalised self first, then its stems. */
export function formsOf(word: string): string[] {
  const normal = normalizeWord(word);
  const forms = new Set([normal]);
  if (ARABIC.test(normal)) for (const f of arabicStems(normal)) forms.add(f);
  else if (/^[a-z]+$/.test(normal)) forms.add(englishStem(normal));
  return [...forms].filter((f) => f.length >= 3 || f === normal);
}

/** `word` without one English inflection: plural -s/-es/-ies, -ing, -ed; a final e and a doubled consonant dropped. */
export function englishStem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(ss|sh|ch|x)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  else if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** The stems of a folded Arabic word: each way of taking off its clitics that leaves a word (see header). */
function arabicStems(word: string): string[] {
  const bases = new Set([word]);
  for (const base of withoutPrefixes(word)) bases.add(base);
  const stems = new Set<string>();
  for (const base of bases) {
    stems.add(base);
    for (const stem of withoutSuffix(base)) stems.add(stem);
    // A ta marbuta is written ت before a pronoun: "سياره" is also matched as the "سيارت" of "سيارتي".
    if (base.endsWith('ه')) stems.add(`${base.slice(0, -1)}ت`);
  }
  return [...stems];
}

/** `word` without its leading clitics, each combination that keeps at least three letters (two after the article). */
function withoutPrefixes(word: string): string[] {
  const out: string[] = [];
  const strip = (w: string, prefixes: readonly string[], least: number) =>
    prefixes.filter((p) => w.startsWith(p) && w.length - p.length >= least).map((p) => w.slice(p.length));
  const afterConjunction = [word, ...strip(word, AR_CONJUNCTIONS, 3)];
  for (const a of afterConjunction) {
    const afterPreposition = [a, ...strip(a, AR_PREPOSITIONS, 3)];
    for (const b of afterPreposition) {
      for (const c of [b, ...strip(b, AR_ARTICLES, 2)]) {
        out.push(c);
        if (c === b) out.push(...strip(c, AR_VERB_PREFIXES, 3));
      }
    }
  }
  return out.filter((w) => w !== word);
}

/** `word` without one pronoun or plural ending, keeping at least two letters. */
function withoutSuffix(word: string): string[] {
  const long = AR_SUFFIXES.filter((s) => word.endsWith(s) && word.length - s.length >= 2);
  const short = AR_SHORT_SUFFIXES.filter((s) => word.endsWith(s) && word.length - s.length >= 2);
  return [...long, ...short].map((s) => word.slice(0, -s.length));
}
