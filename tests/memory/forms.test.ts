import { describe, expect, it } from 'vitest';
import { formsOf, normalizeWord } from '../../src/core/memory/forms.ts';

/** True when the two words share a form: what recall's overlap and the `terms` search count as the same word. */
const same = (a: string, b: string) => formsOf(a).some((f) => formsOf(b).includes(f));

describe('word forms', () => {
  it('folds Arabic letter variants, drops diacritics and tatweel, and reads Arabic-Indic digits', () => {
    expect(normalizeWord('أَخْتِي')).toBe('اختي');
    expect(normalizeWord('إلى')).toBe('الي');
    expect(normalizeWord('مدرسـة')).toBe('مدرسه');
    expect(normalizeWord('٤٣')).toBe('43');
    expect(normalizeWord('۱۲')).toBe('12');
  });

  it('matches an Arabic word with its article, conjunction, preposition and pronoun endings', () => {
    expect(same('امتحاني', 'الامتحان')).toBe(true);
    expect(same('سيارتي', 'السيارة')).toBe(true);
    expect(same('قطتي', 'القطة')).toBe(true);
    expect(same('للنادي', 'النادي')).toBe(true);
    expect(same('والنصف', 'نصف')).toBe(true);
    expect(same('تسكن', 'يسكن')).toBe(true);
  });

  it('does not cut a word down to a root fragment that matches another word', () => {
    expect(same('أختي', 'أخي')).toBe(false);
    expect(same('بنكي', 'بنت')).toBe(false);
  });

  it('matches English plural and verb endings', () => {
    expect(same('Mondays'.toLowerCase(), 'monday')).toBe(true);
    expect(same('lessons', 'lesson')).toBe(true);
    expect(same('named', 'name')).toBe(true);
    expect(same('running', 'run')).toBe(true);
    expect(same('allergies', 'allergy')).toBe(true);
    expect(same('sister', 'sisters')).toBe(true);
    expect(same('business', 'bus')).toBe(false);
  });
});
