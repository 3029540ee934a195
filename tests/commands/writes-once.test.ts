// The class check for "a command runs once, even across a crash": every registered chat command is run for
// one event, that event is then taken up again exactly as a start takes up a stopped process's row, and the
// second run must change nothing in the database (no second row, no switch flipped back). A command that
// changes state is defined `writes: true` and makes its change through ctx.once; the negative controls show
// the check catches a command that writes without it, and that ctx.once refuses an undeclared writer.
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatCommand } from '../../src/core/commands/index.ts';
import { commandEffects, configAudit, inbox, settings, tasks } from '../../src/core/db/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

/** An invocation of each command (and of each of its state-changing forms). A new command must be added. */
const INVOCATIONS: Record<string, string[]> = {
  help: ['/help'],
  start: ['/start'],
  status: ['/status'],
  new: ['/new'],
  compact: ['/compact'],
  stop: ['/stop'],
  approvals: ['/approvals'],
  approve: ['/approve gt_none'],
  deny: ['/deny gt_none no'],
  task: ['/task count the files', '/task cancel tk_none'],
  tasks: ['/tasks'],
  remind: ['/remind in 30m stretch'],
  cron: ['/cron add "0 9 * * 1-5" summarise the alerts'],
  jobs: ['/jobs', '/jobs cancel jb_none'],
  memory: ['/memory', '/memory search exam', '/memory forget mem_none'],
  incidents: ['/incidents'],
  config: [
    '/config tools list',
    '/config tools toggle write_file',
    '/config show',
    '/config prompt set Be brief.',
    '/config prompt reset --here',
    '/config model use fake-model',
    '/config users',
    '/config users remove telegram:9',
  ],
  pair: ['/pair ABCD2345'],
};

/** Tables a re-run may touch: the event's own row, the leases of its turn. */
const BOOKKEEPING = new Set(['inbox', 'thread_leases']);

let k: Assembled;
const surface = new RecordingSurface('telegram');

beforeAll(async () => {
  k = await startAssembled({ access: { operators: [{ name: 'maya', telegram: '42' }] } });
  k.kazma.core.attachSurface(surface);
});
afterAll(() => k.close());

/** Row counts of every table but the bookkeeping ones (an edit of a card is not a new effect), and the settings. */
async function snapshot() {
  const { db } = k.database;
  const result = await db.execute(sql`select tablename from pg_tables where schemaname = 'public'`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{ tablename: string }>;
  const counts: Record<string, number> = {};
  for (const { tablename } of rows) {
    if (BOOKKEEPING.has(tablename)) continue;
    const editsLeftOut = tablename === 'outbox' ? sql` where kind <> 'edit'` : sql``;
    const counted = await db.execute(sql`select count(*)::int as n from ${sql.identifier(tablename)}${editsLeftOut}`);
    counts[tablename] = Number(
      ((Array.isArray(counted) ? counted : (counted as { rows: unknown[] }).rows)[0] as { n: number }).n,
    );
  }
  const saved = await db.select({ key: settings.key, value: settings.value }).from(settings).orderBy(settings.key);
  return { counts, saved };
}

/** Every task has ended (its answer is written when it does, on a worker, not in the command). */
async function tasksEnded(): Promise<void> {
  await eventually(
    () => k.database.db.select().from(tasks),
    (rows) => rows.every((t) => !['queued', 'running'].includes(t.state)),
    'every task ended',
  );
  await k.settled();
}

/** Hands the pipeline one message from maya; returns its event id once its work is done. */
async function say(text: string): Promise<string> {
  const eventId = randomUUID();
  await k.kazma.core.pipeline.handle({
    kind: 'message',
    eventId,
    platform: 'telegram',
    chat: 'telegram:1',
    actor: { platform: 'telegram', id: '42' },
    text,
  });
  await k.settled();
  return eventId;
}

/** Takes the event up again as a start takes up a row a killed process left running. */
async function takeUpAgain(eventId: string): Promise<void> {
  const { db } = k.database;
  const where = eq(inbox.eventId, eventId);
  await db
    .update(inbox)
    .set({ state: 'running', owner: 'a-killed-process', updatedAt: new Date(Date.now() - 3_600_000) })
    .where(where);
  await k.kazma.core.pipeline.recover({ staleBefore: new Date(Date.now() - 60_000) });
  await eventually(
    async () => (await db.select().from(inbox).where(where))[0]?.state,
    (state) => state === 'done' || state === 'failed',
    `event ${eventId} run again`,
  );
  await k.settled();
}

async function runTwice(text: string) {
  const eventId = await say(text);
  await tasksEnded();
  const first = await snapshot();
  const answers = surface.texts().length;
  await takeUpAgain(eventId);
  await tasksEnded();
  return { eventId, first, second: await snapshot(), answeredAgain: surface.texts().length - answers };
}

describe('every chat command runs once for one event (the class check)', () => {
  it('every registered command has an invocation here', () => {
    const names = k.kazma.core.commands
      .list()
      .map((c) => c.name)
      .sort();
    expect(names).toEqual(Object.keys(INVOCATIONS).sort());
  });

  it.each(Object.entries(INVOCATIONS).flatMap(([, texts]) => texts.map((t) => [t] as const)))(
    '%s, taken up again, changes nothing more and answers nothing more',
    async (text) => {
      const { eventId, first, second, answeredAgain } = await runTwice(text);
      const name = text.slice(1).split(' ')[0]!;
      expect(second).toEqual(first);
      expect(answeredAgain).toBe(0);
      const command = k.kazma.core.commands.get(name)!;
      const journalled = await k.database.db
        .select()
        .from(commandEffects)
        .where(eq(commandEffects.eventKey, `telegram:${eventId}`));
      // A command that wrote through ctx.once left its journal row; no other command can.
      if (!command.writes) expect(journalled).toEqual([]);
    },
  );

  it('negative control: a command that writes without ctx.once is caught, and ctx.once refuses an undeclared writer', async () => {
    const { db } = k.database;
    const scribble: ChatCommand = {
      name: 'scribble',
      summary: 'writes an audit row straight to the database',
      serial: false,
      writes: true,
      async run(ctx) {
        await db.insert(configAudit).values({
          actor: { platform: 'telegram', id: '42' },
          chat: ctx.chat,
          command: '/scribble',
          outcome: 'changed',
        });
      },
    };
    const sneaky: ChatCommand = {
      name: 'sneaky',
      summary: 'asks for ctx.once without saying it writes',
      serial: false,
      async run(ctx) {
        await ctx.once('sneak', async (tx) => {
          await tx.insert(configAudit).values({
            actor: { platform: 'telegram', id: '42' },
            chat: ctx.chat,
            command: '/sneaky',
            outcome: 'changed',
          });
          return true;
        });
      },
    };
    k.kazma.core.commands.register(scribble).register(sneaky);
    const { first, second } = await runTwice('/scribble');
    expect(second.counts.config_audit).toBe(first.counts.config_audit! + 1);
    expect(second).not.toEqual(first);

    const before = await snapshot();
    await say('/sneaky');
    expect(await snapshot()).toEqual(before);
    expect(surface.texts().at(-1)).toMatch(/sneaky changes state but is not defined with writes: true/);
  });
});
