// Reminders and cron jobs through real BullMQ: a reminder fires once; one due while Kazma was stopped
// fires once at the next start, marked late; a cancelled one never fires; a cron job runs its task on
// schedule until cancelled.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { kazmasOnOneDatabase } from '../helpers/assembled.ts';
import { eventually } from '../helpers/eventually.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { testQueuePrefix } from '../helpers/outbox.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const CHAT: ChatRef = 'telegram:1';
const MAYA = { platform: 'telegram', id: '42' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
const kazmas = kazmasOnOneDatabase();

async function start(options: { clock?: FakeClock; prefix?: string } = {}) {
  const k = await kazmas.start(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
      access: { operators: [{ name: 'maya', telegram: '42' }] },
    },
    { ...(options.clock && { clock: options.clock }), ...(options.prefix && { queuePrefix: options.prefix }) },
  );
  const surface = new RecordingSurface('telegram');
  k.kazma.core.attachSurface(surface);
  const say = async (text: string) => {
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      text,
    });
    await k.settled();
    return surface.texts().at(-1)!;
  };
  return { k, surface, say };
}

const reminders = (surface: RecordingSurface) => surface.texts().filter((t) => t.startsWith('⏰ Reminder'));

describe('scheduled jobs', () => {
  it('/remind in 2 seconds fires once, with the text as written; /jobs lists it until then', async () => {
    const { surface, say } = await start();
    expect(await say('/remind in 2 seconds stretch 🧘 تمدد')).toMatch(
      /^⏰ I will remind this chat on .* \(UTC\): stretch 🧘 تمدد \(jb_/,
    );
    expect(await say('/jobs')).toMatch(/^Scheduled here:\njb_\S+ — ⏰ .* — stretch 🧘 تمدد/);
    await eventually(
      () => reminders(surface),
      (r) => r.length > 0 && r,
      'the reminder',
      15_000,
    );
    await sleep(1_000);
    expect(reminders(surface)).toEqual(['⏰ Reminder: stretch 🧘 تمدد']);
    expect(await say('/jobs')).toMatch(/^Nothing is scheduled in this chat/);
  });

  it('a reminder due while Kazma was stopped fires once at the next start, marked late', async () => {
    const prefix = testQueuePrefix('sched');
    const clock = new FakeClock();
    const first = await start({ clock, prefix });
    expect(await first.say('/remind in 3 seconds water the plants')).toMatch(/^⏰ I will remind/);
    await kazmas.stop(first.k);

    clock.advance(5 * 60_000); // Kazma comes back five minutes after the reminder was due
    const second = await start({ clock, prefix });
    await eventually(
      () => reminders(second.surface),
      (r) => r.length > 0 && r,
      'the late reminder',
      15_000,
    );
    await sleep(4_000); // the original delayed job falls due now too: it must not fire again
    await second.k.settled();
    expect(reminders(second.surface)).toEqual([
      expect.stringMatching(
        /^⏰ Reminder: water the plants\n\(late: it was due at .*; Kazma could not send it then\)$/,
      ),
    ]);
    expect(reminders(first.surface)).toEqual([]);
  });

  it('/jobs cancel stops a reminder; an id not scheduled here is refused', async () => {
    const { surface, say } = await start();
    const reply = await say('/remind in 2 seconds never mind');
    const id = /\((jb_\S+);/.exec(reply)![1]!;
    expect(await say('/jobs cancel jb_nope')).toBe('There is no scheduled job jb_nope you may cancel here.');
    expect(await say(`/jobs cancel ${id}`)).toBe(`Cancelled ${id}: it will not run.`);
    expect(await say(`/jobs cancel ${id}`)).toBe(`${id} is not scheduled any more (cancelled).`);
    await sleep(3_500);
    expect(reminders(surface)).toEqual([]);
  });

  it('a time that is past, missing or ambiguous is refused with the reason', async () => {
    const { say } = await start();
    expect(await say('/remind yesterday 9am call')).toMatch(
      /^Not scheduled: "yesterday 9am" is .* that is not in the future\.$/,
    );
    expect(await say('/remind whenever')).toMatch(/^Not scheduled: I could not find a time in "whenever"/);
    expect(await say('/remind in 5 minutes')).toMatch(/^Not scheduled: what should I remind you of at/);
    expect(await say('/cron add "every day" x')).toMatch(/^Not scheduled: "every day" is not a cron pattern/);
  });

  it('/cron add runs its task on schedule, each answer posted, until /jobs cancel', async () => {
    const { k, surface, say } = await start();
    const reply = await say('/cron add "*/2 * * * * *" say hi');
    expect(reply).toMatch(/^🔁 "\*\/2 \* \* \* \* \*" \(UTC\) will run: say hi \(jb_/);
    const id = /\((jb_\S+);/.exec(reply)![1]!;
    const answers = () => surface.texts().filter((t) => /^✅ Task tk_\S+ is done:\n\necho: say hi$/.test(t));
    await eventually(answers, (a) => a.length >= 2 && a, 'two runs of the cron task', 20_000);
    expect(await say(`/jobs cancel ${id}`)).toBe(`Cancelled ${id}: it will not run.`);
    await sleep(1_000);
    await k.settled();
    const settledCount = answers().length;
    await sleep(4_500);
    await k.settled();
    expect(answers().length).toBeLessThanOrEqual(settledCount + 1); // at most a run already under way
    expect((await k.kazma.core.schedules.get(id))!.fires).toBeGreaterThanOrEqual(2);
  });
});
