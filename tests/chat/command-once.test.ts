// "A command runs once, even across a crash", with real processes: a state-changing command (/task,
// /remind, /cron add, /config tools toggle) whose effect committed but whose inbox row had not ended yet
// is taken up again at the next start. Killed there with kill -9 (PGlite), or cut off from PostgreSQL
// there (the row cannot end) and restarted gracefully, the command's change is made once — one task, one
// reminder, one cron schedule, the tool stays off — and its answer is sent once.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/index.ts';
import { configAudit, inbox, outbox, schedules, settings, tasks } from '../../src/core/db/index.ts';
import { openMigratedDatabase } from '../../src/storage.ts';
import { killAll, spawnNode, writeConfig } from '../agent/helpers/spawn.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';
import { createPgDatabase, seedPgliteDataDir } from '../helpers/databases.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

const CHILD = join(REPO_ROOT, 'tests/chat/fixtures/command-child.ts');
const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  killAll();
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Each state-changing command, and the answer it gives in the chat (none for /task: its card answers). */
const COMMANDS = [
  { text: '/task write a haiku about queues', answer: undefined },
  { text: '/remind in 30m stretch', answer: /^⏰ I will remind this chat/ },
  { text: '/cron add "0 9 * * 1-5" summarise the alerts', answer: /^🔁 "0 9 \* \* 1-5"/ },
  { text: '/config tools toggle write_file', answer: /^write_file is off/ },
] as const;

async function install(database?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'kazma-once-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  if (!database) await seedPgliteDataDir(join(dir, 'data'));
  const config = writeConfig(dir, 'kazma.yaml', {
    data_dir: join(dir, 'data'),
    http: { port: 0 },
    access: { operators: [{ name: 'maya', telegram: '42' }] },
    // A long lease: no start takes up another process's event before the test asks (`recover`).
    ...(database && { database: { url: database }, turns: { lease_ttl: '300s' } }),
    shutdown: { timeout: '3s' },
  });
  return { config, sent: join(dir, 'sent.jsonl') };
}

const sentTexts = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { text?: string }).text)
        .filter((text): text is string => text !== undefined)
    : [];

async function inspect(config: string) {
  const database = await openMigratedDatabase(loadConfig({ path: config }));
  try {
    const { db } = database;
    return {
      tasks: await db.select().from(tasks),
      taskCards: (await db.select().from(outbox)).filter((row) => row.ownerKind === 'task' && row.kind === 'card'),
      schedules: await db.select().from(schedules),
      disabled: (await db.select().from(settings)).find((row) => row.key === 'tools.disabled')?.value,
      audit: await db.select().from(configAudit),
      inbox: await db.select().from(inbox),
    };
  } finally {
    await database.close();
  }
}

/** What the database and the chat show after each command ran (and was taken up again) `runs` times. */
function expectOnce(left: Awaited<ReturnType<typeof inspect>>, sent: string, texts: readonly string[]) {
  const ran = (command: string) => texts.some((t) => t.startsWith(command));
  if (ran('/task')) {
    expect(left.tasks).toHaveLength(1);
    expect(left.taskCards).toHaveLength(1);
  }
  if (ran('/remind')) expect(left.schedules.filter((s) => s.kind === 'reminder')).toHaveLength(1);
  if (ran('/cron')) expect(left.schedules.filter((s) => s.kind === 'cron')).toHaveLength(1);
  if (ran('/config')) {
    expect(left.disabled).toEqual(['write_file']);
    expect(left.audit.filter((a) => a.outcome === 'changed')).toHaveLength(1);
  }
  for (const { text, answer } of COMMANDS)
    if (answer && ran(text)) expect(sentTexts(sent).filter((t) => answer.test(t))).toHaveLength(1);
}

describe('a command runs once, even across a crash', () => {
  it.each(COMMANDS.map((c) => [c.text] as const))(
    'kill -9 after "%s" took effect and before its row ended: taken up at the next start, done once',
    async (text) => {
      const { config, sent } = await install();
      const first = spawnNode(CHILD, ['--config', config, '--sent', sent, '--crash-after', 'e1']);
      await first.waitFor('READY');
      first.send([`say e1 ${text}`]);
      await first.waitFor('WORKED e1');
      expect((await first.exited).signal).toBe('SIGKILL');

      const second = spawnNode(CHILD, ['--config', config, '--sent', sent]);
      await second.waitFor('WORKED e1'); // the start took the event up again
      second.send([], true);
      expect((await second.exited).code, second.stderr()).toBe(0);

      const left = await inspect(config);
      expect(left.inbox.map((row) => row.attempts)).toEqual([2]);
      expectOnce(left, sent, [text]);
    },
    120_000,
  );

  it('PostgreSQL cut after each command took effect (its row could not end), then a restart: each once', async () => {
    const pg = await createPgDatabase();
    cleanup.push(pg.drop);
    const url = new URL(pg.url);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    cleanup.push(() => proxy.close());
    url.port = String(proxy.port);
    const { config, sent } = await install(url.toString());
    const texts = COMMANDS.map((c) => c.text);

    for (const [i, text] of texts.entries()) {
      const first = spawnNode(CHILD, ['--config', config, '--sent', sent, '--hold-after', `e${i}`]);
      await first.waitFor('READY');
      first.send([`say e${i} ${text}`]);
      await first.waitFor(`HELD e${i}`);
      proxy.cut();
      first.send(['go']);
      await first.waitFor(`DONE e${i}`);
      proxy.restore();
      first.send([], true);
      expect((await first.exited).code, first.stderr()).toBe(0);
    }
    const left = await inspect(config);
    expect(left.inbox.map((row) => row.state)).toEqual(['running', 'running', 'running', 'running']);

    const second = spawnNode(CHILD, ['--config', config, '--sent', sent]);
    await second.waitFor('READY');
    second.send(['recover']);
    await second.waitFor('RECOVERED 4');
    for (const i of texts.keys()) await second.waitFor(`WORKED e${i}`);
    second.send([], true);
    expect((await second.exited).code, second.stderr()).toBe(0);
    expectOnce(await inspect(config), sent, texts);
  }, 180_000);
});
