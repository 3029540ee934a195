// Words as memory compares them: the same rule for the text-search query, the overlap score and the
// tombstone's hash, in Arabic as in English (letters and digits of any script, nothing stemmed).
import { createHash } from 'node:crypto';
import { formsOf, normalizeWord } from './forms.ts';

// Words that say nothing about what a note is about; short on purpose (the `simple` configuration keeps every word).
const STOP_WORDS = new Set(
  (
    'a an the and or but if of on in at to for from with by about as is are was were be been am do does did ' +
    'i me my mine you your we our he him his she her they them their it its this that these those there ' +
    'what when where who whom which why how can could will would should shall may might must have has had ' +
    'not no yes so than then too very just any some all tell know remember please ' +
    'في من على إلى الى عن ما ماذا متى أين اين كيف هل لماذا أنا انا أنت انت هو هي نحن هم هذا هذه ذلك تلك ' +
    'التي الذي الذين مع كان كانت يكون لا لم لن قد ثم أو او و'
  )
    .split(' ')
    .map(normalizeWord),
);

/** Every word of `text`, lowercased (NFKC), in order: runs of letters, marks and digits of any script. */
export function wordsOf(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{M}\p{N}]+/gu) ?? []
  );
}

/** The distinct words of `text` that carry meaning (stop words and single letters left out). */
export function contentWords(text: string): string[] {
  return [
    ...new Set(wordsOf(text).filter((w) => !STOP_WORDS.has(normalizeWord(w)) && (w.length > 1 || /\p{N}/u.test(w)))),
  ];
}

/** Every form (forms.ts) of every word of `text`: what a question's word is looked for in. */
export function formsIn(text: string): Set<string> {
  return new Set(wordsOf(text).flatMap(formsOf));
}

/** A note's words as a hash: the same words, whatever their case or punctuation, hash the same. */
export function textHash(text: string): string {
  return createHash('sha256').update(wordsOf(text).join(' ')).digest('hex');
}

/** A subject as compared: lowercased words joined by one space. */
export function subjectKey(subject: string | undefined): string | null {
  const words = subject ? wordsOf(subject) : [];
  return words.length > 0 ? words.join(' ') : null;
}
