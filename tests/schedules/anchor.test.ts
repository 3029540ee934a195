// Dates anchored to memory, as words are read: "the day before my exam at 9am" takes its day from the
// remembered note, in time.zone; with nothing remembered, or notes that disagree, the answer is a
// question — never a date of its own. parseWhen refuses such words, so no path reads them as "today at 9".
import { describe, expect, it } from 'vitest';
import { anchorWhen, type DatedNote } from '../../src/core/schedules/anchor.ts';
import { scheduleTools } from '../../src/core/schedules/tools.ts';
import { parseWhen } from '../../src/core/schedules/when.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';

const NOW = new Date('2026-12-01T09:00:00Z');
const ZONE = 'Asia/Kuwait';
const never = () => {
  throw new Error('not called');
};
const note = (id: string, text: string, written = NOW): DatedNote => ({ id, text, createdAt: written });

/** A memory holding `notes`: those that hold every word asked for, as the memory's full-text search finds them. */
function memoryOf(...notes: DatedNote[]) {
  const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return {
    notesAbout: async (about: string) => notes.filter((n) => words(about).every((w) => words(n.text).includes(w))),
  };
}

describe('anchoring a time to memory', () => {
  it('"the day before my exam at 9am" is 09:00 Kuwait time on the day before the remembered exam', async () => {
    const memory = memoryOf(note('mem_1', 'My exam is on 14 January'));
    const anchored = await anchorWhen('the day before my exam at 9am revise chapter 3', {
      now: NOW,
      zone: ZONE,
      notesAbout: memory.notesAbout,
    });
    expect(anchored).toEqual({
      kind: 'anchored',
      words: '2027-01-13 09:00 revise chapter 3',
      at: new Date('2027-01-13T06:00:00Z'),
      said: 'the day before my exam',
      from: '2027-01-14 from mem_1 "My exam is on 14 January"',
    });
    // The rewritten words read back as the same instant: what is stored is what was anchored.
    expect((await parseWhen('2027-01-13 09:00 revise chapter 3', { now: NOW, zone: ZONE })).at).toEqual(
      new Date('2027-01-13T06:00:00Z'),
    );
  });

  it('reads weeks and days after, the longest remembered name, and a note’s date from when it was written', async () => {
    const launch = note('mem_2', 'The product launch is on 3 March', new Date('2026-11-20T10:00:00Z'));
    const anchored = await anchorWhen('two days after the product launch at 18:00 write the recap', {
      now: NOW,
      zone: ZONE,
      notesAbout: memoryOf(launch).notesAbout,
    });
    expect(anchored).toMatchObject({ kind: 'anchored', words: '2027-03-05 18:00 write the recap' });
    const week = await anchorWhen('a week before the launch at 8am book the hall', {
      now: NOW,
      zone: ZONE,
      notesAbout: memoryOf(launch).notesAbout,
    });
    expect(week).toMatchObject({ kind: 'anchored', words: '2027-02-24 08:00 book the hall' });
  });

  it('reads the Arabic form, with Arabic-Indic digits and an Arabic month', async () => {
    const anchored = await anchorWhen('قبل امتحاني بيوم الساعة ٩ صباحا مراجعة الفصل', {
      now: NOW,
      zone: ZONE,
      notesAbout: memoryOf(note('mem_3', 'امتحاني يوم ١٤ يناير')).notesAbout,
    });
    expect(anchored).toMatchObject({
      kind: 'anchored',
      words: '2027-01-13 09:00 مراجعة الفصل',
      at: new Date('2027-01-13T06:00:00Z'),
    });
  });

  it('asks which date is meant when nothing remembered names it, or memory is off', async () => {
    const memory = memoryOf(note('mem_4', 'My sister is called Sara'));
    const asked = await anchorWhen('the day before my exam at 9am revise', {
      now: NOW,
      zone: ZONE,
      notesAbout: memory.notesAbout,
    });
    expect(asked).toEqual({
      kind: 'ask',
      question:
        'Which date is "my exam"? I remember nothing that says when it is, so nothing is scheduled. ' +
        'Tell me the date (e.g. 2027-01-14), or tell me when my exam is and ask again.',
    });
    expect(await anchorWhen('the day before my exam at 9am revise', { now: NOW, zone: ZONE })).toMatchObject({
      kind: 'ask',
    });
    // A note about the exam with no date in it names no day either.
    const undated = memoryOf(note('mem_5', 'My exam is hard'));
    expect(await anchorWhen('the day before my exam', { now: NOW, zone: ZONE, ...undated })).toMatchObject({
      kind: 'ask',
    });
  });

  it('asks when notes disagree on the date, naming both', async () => {
    const memory = memoryOf(note('mem_6', 'My exam is on 14 January'), note('mem_7', 'The exam moved: 16 January'));
    const asked = await anchorWhen('the day before my exam at 9am', { now: NOW, zone: ZONE, ...memory });
    expect(asked.kind).toBe('ask');
    expect(asked.kind === 'ask' && asked.question).toMatch(/2027-01-14 \(mem_6.*2027-01-16 \(mem_7/);
  });

  it('leaves times that name nothing remembered to the parser, and the parser refuses anchored words', async () => {
    expect(await anchorWhen('tomorrow 9am standup', { now: NOW, zone: ZONE })).toEqual({ kind: 'plain' });
    await expect(parseWhen('the day before my exam at 9am revise', { now: NOW, zone: ZONE })).rejects.toThrow(
      /names a day by something remembered/,
    );
  });

  it('an anchored day already past is refused with the reason, not moved', async () => {
    const memory = memoryOf(note('mem_8', 'My exam was on 20 November', new Date('2026-11-01T09:00:00Z')));
    await expect(anchorWhen('the day before my exam at 9am', { now: NOW, zone: ZONE, ...memory })).rejects.toThrow(
      /not in the future/,
    );
  });

  it('schedule_task refuses a remembered day as a cron pattern before any card, pointing to schedule_reminder', async () => {
    const registry = new ToolRegistry();
    const port = { remind: never, addCron: never, format: never, anchor: never } as unknown as Parameters<
      typeof scheduleTools
    >[0];
    for (const tool of scheduleTools(port)) registry.register(tool);
    const ctx = {
      workspace: '/nonexistent',
      env: {},
      turn: { chat: 'telegram:42', requester: { platform: 'telegram', id: '42' }, threadId: 't' },
    };
    const pattern = 'the day before my exam at 9am';
    expect(await registry.classify('schedule_task', { pattern, prompt: 'revise' }, ctx)).toMatchObject({
      kind: 'refuse',
      reason: expect.stringContaining('use schedule_reminder'),
    });
    expect(await registry.classify('schedule_task', { pattern: '0 9 * * *', prompt: 'revise' }, ctx)).toMatchObject({
      kind: 'ask',
    });
  });
});
