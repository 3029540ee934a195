// Reading when a person means, in the configured zone, in English and in Arabic; refusing what is past,
// missing or ambiguous with a reason.
import { describe, expect, it } from 'vitest';
import { parseWhen, WhenError } from '../../src/core/schedules/when.ts';

const NOW = new Date('2026-12-01T12:00:00Z'); // 15:00 in Kuwait (UTC+3)
const KUWAIT = { now: NOW, zone: 'Asia/Kuwait' };
const afterMs = (ms: number) => new Date(NOW.getTime() + ms).toISOString();

describe('parseWhen', () => {
  it.each([
    ['in 10 seconds stretch', afterMs(10_000), 'in 10 seconds', 'stretch'],
    ['in 30m tea', afterMs(30 * 60_000), 'in 30m', 'tea'],
    ['in 2h call the bank', afterMs(2 * 3_600_000), 'in 2h', 'call the bank'],
    ['tomorrow 9am standup', '2026-12-02T06:00:00.000Z', 'tomorrow 9am', 'standup'],
    ['2026-12-24 18:00 party 🎉', '2026-12-24T15:00:00.000Z', '2026-12-24 18:00', 'party 🎉'],
  ])('"%s" in Asia/Kuwait', async (text, at, words, rest) => {
    expect(await parseWhen(text, KUWAIT)).toEqual({ at: new Date(at), words, rest });
  });

  it('"tomorrow 9am" in UTC is 09:00 UTC', async () => {
    expect((await parseWhen('tomorrow 9am x', { now: NOW, zone: 'UTC' })).at.toISOString()).toBe(
      '2026-12-02T09:00:00.000Z',
    );
  });

  // The Arabic corpus: Arabic-Indic digits, diacritics, and the common words; the rest stays as written.
  it.each([
    ['بعد ١٠ دقائق اتصل بأمي', afterMs(10 * 60_000), 'بعد ١٠ دقائق', 'اتصل بأمي'],
    ['بعد ٣٠ ثانية موعد 🎉', afterMs(30_000), 'بعد ٣٠ ثانية', 'موعد 🎉'],
    ['بعد ساعتين الدواء', afterMs(2 * 3_600_000), 'بعد ساعتين', 'الدواء'],
    ['غدًا الساعة ٩ صباحًا اجتماع الفريق', '2026-12-02T06:00:00.000Z', 'غدًا الساعة ٩ صباحًا', 'اجتماع الفريق'],
    ['غدا الساعة ٦ مساءً العشاء', '2026-12-02T15:00:00.000Z', 'غدا الساعة ٦ مساءً', 'العشاء'],
    ['بعد ٢ أيام تجديد الاشتراك', afterMs(2 * 86_400_000), 'بعد ٢ أيام', 'تجديد الاشتراك'],
  ])('"%s" in Asia/Kuwait', async (text, at, words, rest) => {
    expect(await parseWhen(text, KUWAIT)).toEqual({ at: new Date(at), words, rest });
  });

  it.each([
    ['yesterday 9am call', /not in the future/],
    ['2025-01-01 10:00 old', /not in the future/],
    ['03/04 dentist', /could be day\/month or month\/day/],
    ['whenever you like', /could not find a time/],
  ])('refuses "%s" with a reason', async (text, reason) => {
    await expect(parseWhen(text, KUWAIT)).rejects.toThrow(WhenError);
    await expect(parseWhen(text, KUWAIT)).rejects.toThrow(reason);
  });
});
