// A time read in a zone is read with the zone's offset ON THE TARGET DATE, not today's: a reminder set in
// December for July in Berlin fires at 09:00 summer time, not at 10:00. The corpus walks both sides of
// each 2027 transition in zones north and south of the equator, one without daylight saving, and one
// (Santiago) whose clocks change at midnight. Every expected instant is written out by hand.
//
// What a wall time means at a transition (the rule of Temporal's "compatible" and RFC 5545):
// - in the skipped hour (spring forward) it is moved on by the gap: 02:30 on Berlin's spring-forward day
//   is 03:30 summer time, the clock time that hour became;
// - in the repeated hour (fall back) it is the first occurrence (still summer time);
// - "in 2 hours" is elapsed time; "tomorrow", "in 1 day" keep the wall clock time on the new day.
import { describe, expect, it } from 'vitest';
import { parseWhen } from '../../src/core/schedules/when.ts';

const DECEMBER = new Date('2026-12-01T12:00:00Z');

describe('parseWhen across daylight-saving changes', () => {
  it.each([
    // Europe/Berlin: +01 -> +02 at 2027-03-28 02:00, +02 -> +01 at 2027-10-31 03:00.
    ['Europe/Berlin', '2027-07-15 09:00', '2027-07-15T07:00:00Z'],
    ['Europe/Berlin', '2027-03-27 09:00', '2027-03-27T08:00:00Z'],
    ['Europe/Berlin', '2027-03-28 01:30', '2027-03-28T00:30:00Z'],
    ['Europe/Berlin', '2027-03-28 02:30', '2027-03-28T01:30:00Z'], // skipped: 03:30 summer time
    ['Europe/Berlin', '2027-03-28 03:30', '2027-03-28T01:30:00Z'],
    ['Europe/Berlin', '2027-03-29 09:00', '2027-03-29T07:00:00Z'],
    ['Europe/Berlin', '2027-10-30 09:00', '2027-10-30T07:00:00Z'],
    ['Europe/Berlin', '2027-10-31 02:30', '2027-10-31T00:30:00Z'], // repeated: the first, summer time
    ['Europe/Berlin', '2027-10-31 03:30', '2027-10-31T02:30:00Z'],
    ['Europe/Berlin', '2027-11-01 09:00', '2027-11-01T08:00:00Z'],
    // America/New_York: -05 -> -04 at 2027-03-14 02:00, -04 -> -05 at 2027-11-07 02:00.
    ['America/New_York', '2027-07-04 09:00', '2027-07-04T13:00:00Z'],
    ['America/New_York', '2027-03-13 09:00', '2027-03-13T14:00:00Z'],
    ['America/New_York', '2027-03-14 02:30', '2027-03-14T07:30:00Z'], // skipped: 03:30 EDT
    ['America/New_York', '2027-03-14 09:00', '2027-03-14T13:00:00Z'],
    ['America/New_York', '2027-11-07 01:30', '2027-11-07T05:30:00Z'], // repeated: the first, EDT
    ['America/New_York', '2027-11-07 09:00', '2027-11-07T14:00:00Z'],
    // Australia/Sydney (summer in December): +11 -> +10 at 2027-04-04 03:00, +10 -> +11 at 2027-10-03 02:00.
    ['Australia/Sydney', '2027-07-15 09:00', '2027-07-14T23:00:00Z'],
    ['Australia/Sydney', '2027-04-03 09:00', '2027-04-02T22:00:00Z'],
    ['Australia/Sydney', '2027-04-04 02:30', '2027-04-03T15:30:00Z'], // repeated: the first, AEDT
    ['Australia/Sydney', '2027-04-05 09:00', '2027-04-04T23:00:00Z'],
    ['Australia/Sydney', '2027-10-03 02:30', '2027-10-02T16:30:00Z'], // skipped: 03:30 AEDT
    ['Australia/Sydney', '2027-10-04 09:00', '2027-10-03T22:00:00Z'],
    // Asia/Kuwait: +03 all year.
    ['Asia/Kuwait', '2027-07-15 09:00', '2027-07-15T06:00:00Z'],
    ['Asia/Kuwait', '2027-03-28 02:30', '2027-03-27T23:30:00Z'],
    // Europe/London: +00 -> +01 at 2027-03-28 01:00, +01 -> +00 at 2027-10-31 02:00.
    ['Europe/London', '2027-07-15 09:00', '2027-07-15T08:00:00Z'],
    ['Europe/London', '2027-03-28 01:30', '2027-03-28T01:30:00Z'], // skipped: 02:30 BST
    ['Europe/London', '2027-10-31 01:30', '2027-10-31T00:30:00Z'], // repeated: the first, BST
    ['Europe/London', '2027-10-31 09:00', '2027-10-31T09:00:00Z'],
    // America/Santiago (summer in December): -03 -> -04 at 2027-04-04 00:00 (23:00 of the 3rd comes twice),
    // -04 -> -03 at 2027-09-05 00:00 (midnight to 01:00 is skipped).
    ['America/Santiago', '2027-07-15 09:00', '2027-07-15T13:00:00Z'],
    ['America/Santiago', '2027-04-03 23:30', '2027-04-04T02:30:00Z'], // repeated: the first, -03
    ['America/Santiago', '2027-04-04 09:00', '2027-04-04T13:00:00Z'],
    ['America/Santiago', '2027-09-05 00:30', '2027-09-05T04:30:00Z'], // skipped: 01:30 -03
    ['America/Santiago', '2027-09-05 09:00', '2027-09-05T12:00:00Z'],
  ])('%s: "%s" set in December', async (zone, words, at) => {
    const when = await parseWhen(`${words} water the plants`, { now: DECEMBER, zone });
    expect(when).toEqual({ at: new Date(at), words, rest: 'water the plants' });
  });

  // Said at 01:30 in Berlin, half an hour before the clocks go forward (00:30 UTC).
  const BEFORE_SPRING = { now: new Date('2027-03-28T00:30:00Z'), zone: 'Europe/Berlin' };
  it.each([
    ['in 2 hours', '2027-03-28T02:30:00Z'], // elapsed: 04:30 on the clock
    ['in 90m', '2027-03-28T02:00:00Z'],
    ['at 2:30', '2027-03-28T01:30:00Z'], // today's 02:30 does not exist: 03:30
    ['today 9am', '2027-03-28T07:00:00Z'],
    ['tomorrow 9am', '2027-03-29T07:00:00Z'],
    ['in 1 day', '2027-03-28T23:30:00Z'], // 01:30 on the clock tomorrow, 23 hours on
    ['غدًا الساعة ٩ صباحًا', '2027-03-29T07:00:00Z'],
  ])('Europe/Berlin before spring forward: "%s"', async (words, at) => {
    expect((await parseWhen(`${words} call`, BEFORE_SPRING)).at).toEqual(new Date(at));
  });

  // Said at 01:30 in New York on the night the clocks go back, during the first 01:30 (05:30 UTC).
  const FALL_BACK = { now: new Date('2027-11-07T05:30:00Z'), zone: 'America/New_York' };
  it.each([
    ['in 1 hour', '2027-11-07T06:30:00Z'], // elapsed: the second 01:30
    ['today 9am', '2027-11-07T14:00:00Z'],
    ['in 1 day', '2027-11-08T06:30:00Z'], // 01:30 on the clock tomorrow, 25 hours on
  ])('America/New_York at the repeated hour: "%s"', async (words, at) => {
    expect((await parseWhen(`${words} call`, FALL_BACK)).at).toEqual(new Date(at));
  });

  it('a zone written in the words wins over time.zone', async () => {
    const when = await parseWhen('2027-07-15 09:00 UTC call', { now: DECEMBER, zone: 'Europe/Berlin' });
    expect(when.at).toEqual(new Date('2027-07-15T09:00:00Z'));
  });
});
