// Dates anchored to memory through Kazma assembled as `kazma start` assembles it, in Asia/Kuwait: /remind
// anchors "the day before my exam at 9am" to the remembered exam itself (no model call), the model's
// schedule_reminder is rewritten before its card (the card shows the absolute date, and that date runs),
// and with nothing remembered both ask which date is meant and schedule nothing.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/core/db/index.ts';
import { MemoryStore } from '../../src/core/memory/index.ts';
import type { Actor, ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const MAYA: Actor = { platform: 'telegram', id: '42' };
const OTHER: Actor = { platform: 'telegram', id: '77' };
const chatOf = (actor: Actor): ChatRef => `telegram:${actor.id}`;
const DUE = new Date('2027-01-13T06:00:00Z'); // 09:00 in Kuwait (UTC+3) on 13 January

let llm: FakeLlm;
let k: Assembled;
let surface: RecordingSurface;
let examNote: string;
beforeAll(async () => {
  llm = await startFakeLlm();
  const clock = new FakeClock('2026-12-01T09:00:00Z');
  k = await startAssembled(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
      time: { zone: 'Asia/Kuwait' },
      access: { operators: [{ name: 'maya', telegram: '42' }], users: ['telegram:77'] },
    },
    { clock },
  );
  surface = new RecordingSurface('telegram');
  k.kazma.core.attachSurface(surface);
  const store = new MemoryStore({ db: k.database.db, clock });
  examNote = (await store.remember({ owner: 'person:maya', text: 'My exam is on 14 January', source: 'stated' })).id;
});
afterAll(async () => {
  await k.close();
  await llm.close();
});

async function say(actor: Actor, text: string): Promise<string> {
  const before = surface.sent.length;
  await k.kazma.core.pipeline.handle({
    kind: 'message',
    eventId: randomUUID(),
    platform: 'telegram',
    chat: chatOf(actor),
    actor,
    text,
  });
  await k.settled();
  return surface.sent.slice(before).at(-1)?.text ?? '';
}

const rowsOf = (actor: Actor) =>
  k.database.db
    .select()
    .from(schema.schedules)
    .where(eq(schema.schedules.chat, chatOf(actor)));

describe('dates anchored to memory', () => {
  it('/remind "the day before my exam at 9am" is 09:00 Kuwait time on 13 January, with where it came from', async () => {
    const reply = await say(MAYA, '/remind the day before my exam at 9am revise chapter 3');
    expect(reply).toMatch(
      new RegExp(
        '^⏰ I will remind this chat on Wed, 13 Jan 2027, 09:00 \\(Asia/Kuwait\\): revise chapter 3 ' +
          `\\(the day before my exam: 2027-01-14 from ${examNote} "My exam is on 14 January"; jb_`,
      ),
    );
    expect(llm.requests).toHaveLength(0); // from memory, without a model call
    const rows = await rowsOf(MAYA);
    expect(rows.map((r) => [r.dueAt, r.text, r.words])).toEqual([
      [
        DUE,
        'revise chapter 3',
        `2027-01-13 09:00 (the day before my exam: 2027-01-14 from ${examNote} "My exam is on 14 January")`,
      ],
    ]);
  });

  it('/remind with nothing remembered asks which date is meant and schedules nothing', async () => {
    const reply = await say(OTHER, '/remind the day before my exam at 9am revise');
    expect(reply).toBe(
      'Which date is "my exam"? I remember nothing that says when it is, so nothing is scheduled. ' +
        'Tell me the date (e.g. 2027-01-14), or tell me when my exam is and ask again.',
    );
    expect(await rowsOf(OTHER)).toEqual([]);
  });

  it('schedule_reminder: the card shows the anchored date, and that date is what runs', async () => {
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: chatOf(MAYA),
      actor: MAYA,
      text: '/new',
    });
    await k.settled();
    const before = (await rowsOf(MAYA)).length;
    const args = { when: 'the day before my exam at 9am', text: 'pack the calculator' };
    llm.script({ toolCalls: [{ name: 'schedule_reminder', args }] }, { text: 'Set.' });
    await say(MAYA, 'remind me the day before my exam at 9am to pack the calculator');
    const card = surface.openCard()!.card;
    const why = card.fields.find((f) => f.label === 'Why')?.value;
    expect(why).toContain('"the day before my exam at 9am" is Wed, 13 Jan 2027, 09:00 (Asia/Kuwait)');
    expect(why).toContain(`2027-01-14 from ${examNote}`);
    expect(await rowsOf(MAYA)).toHaveLength(before); // nothing before the approval
    const button = card.buttons.find((b) => b.id.endsWith(':once'))!;
    await k.kazma.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: chatOf(MAYA),
      actor: MAYA,
      actionId: button.id,
    });
    await k.settled();
    const row = (await rowsOf(MAYA)).find((r) => r.text === 'pack the calculator');
    expect(row?.dueAt).toEqual(DUE);
    expect(row?.words).toContain(`the day before my exam: 2027-01-14 from ${examNote}`);
  });

  it('schedule_reminder: when the remembered date changes between the card and the tap, nothing runs', async () => {
    const before = (await rowsOf(MAYA)).length;
    const args = { when: 'the day before my exam at 8am', text: 'print the notes' };
    llm.script({ toolCalls: [{ name: 'schedule_reminder', args }] }, { text: 'Could not.' });
    await say(MAYA, 'remind me the day before my exam at 8am to print the notes');
    const card = surface.openCard()!.card;
    expect(card.fields.find((f) => f.label === 'Why')?.value).toContain('Wed, 13 Jan 2027, 08:00');
    // The exam moves after the card was shown: what the approver saw is no longer what would run.
    const store = new MemoryStore({ db: k.database.db, clock: new FakeClock('2026-12-02T09:00:00Z') });
    await store.forget({ owners: ['person:maya'], ids: [examNote] });
    await store.remember({ owner: 'person:maya', text: 'My exam is on 20 January', source: 'stated' });
    const button = card.buttons.find((b) => b.id.endsWith(':once'))!;
    await k.kazma.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: chatOf(MAYA),
      actor: MAYA,
      actionId: button.id,
    });
    await k.settled();
    expect(await rowsOf(MAYA)).toHaveLength(before);
    const told = llm.requests
      .at(-1)!
      .messages!.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(told.at(-1)).toMatch(/resolve differently now than on the approved card/);
  });

  it('schedule_reminder with nothing remembered: no card, nothing scheduled, the model is told to ask', async () => {
    const cards = surface.cards.length;
    const args = { when: 'two days after the launch at 10am', text: 'write the recap' };
    llm.script({ toolCalls: [{ name: 'schedule_reminder', args }] }, { text: 'Which date is the launch?' });
    expect(await say(OTHER, 'remind me two days after the launch at 10am to write the recap')).toBe(
      'Which date is the launch?',
    );
    expect(surface.cards).toHaveLength(cards);
    expect(await rowsOf(OTHER)).toEqual([]);
    const told = llm.requests
      .at(-1)!
      .messages!.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(told).toEqual([expect.stringMatching(/^refused before any effect: nothing was scheduled; ask the person/)]);
    expect(told[0]).toContain('Which date is "the launch"?');
  });
});
