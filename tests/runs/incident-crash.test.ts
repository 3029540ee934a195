// A real Kazma process is killed (SIGKILL) at each step of opening an incident — after the incident
// row, after its card rows (pending), while a card is being sent — and started again. Cards whose rows
// were pending are sent exactly once; none is ever sent twice; a card that was being sent is marked
// "delivery unknown" (a platform has no idempotency key) and /status says so.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/index.ts';
import { runIncidents } from '../../src/core/db/schema/incidents.ts';
import { outbox } from '../../src/core/db/schema/outbox.ts';
import { tasks } from '../../src/core/db/schema/tasks.ts';
import { openMigratedDatabase } from '../../src/storage.ts';
import { CLI, killAll, spawnNode, writeConfig } from '../agent/helpers/spawn.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';
import { eventually } from '../helpers/eventually.ts';
import { seedPgliteDataDir } from '../helpers/databases.ts';

const CHILD = join(REPO_ROOT, 'tests/runs/fixtures/supervising-kazma.ts');
afterEach(() => killAll());

type Stage = 'incident-row' | 'card-rows' | 'sending';

/** A data dir whose database holds one task that has made no progress for an hour. */
async function stalledInstall() {
  const dir = mkdtempSync(join(tmpdir(), 'kazma-incident-'));
  await seedPgliteDataDir(join(dir, 'data'));
  const config = writeConfig(dir, 'kazma.yaml', {
    data_dir: join(dir, 'data'),
    http: { port: 0 },
    access: { operators: [{ name: 'maya', telegram: '42' }] },
    runs: { alert_channels: ['slack:C1'], stall_after: { task: '1m' } },
  });
  const database = await openMigratedDatabase(loadConfig({ path: config }));
  await database.db.insert(tasks).values({
    id: 't_stalled',
    goal: 'rebuild the search index',
    state: 'running',
    threadId: 'task:t_stalled',
    originChat: 'telegram:1',
    requester: { platform: 'telegram', id: '42' },
    progressAt: new Date(Date.now() - 60 * 60_000),
  });
  await database.close();
  return { dir, config, cards: join(dir, 'cards.jsonl') };
}

async function inspect(config: string) {
  const database = await openMigratedDatabase(loadConfig({ path: config }));
  try {
    return { incidents: await database.db.select().from(runIncidents), rows: await database.db.select().from(outbox) };
  } finally {
    await database.close();
  }
}

const sent = (cards: string) =>
  existsSync(cards)
    ? readFileSync(cards, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { chat: string })
    : [];

describe('killed while opening an incident, then restarted', () => {
  it.each<[Stage]>([['incident-row'], ['card-rows']])(
    'killed after the %s step: each card is sent exactly once after the restart',
    async (stage) => {
      const install = await stalledInstall();
      const first = spawnNode(CHILD, ['--config', install.config, '--cards', install.cards, '--crash-at', stage]);
      await first.waitFor('READY');
      first.send(['sweep']);
      await first.waitFor(`STAGE ${stage}`);
      const { signal } = await first.exited;
      expect(signal).toBe('SIGKILL');
      expect(sent(install.cards)).toEqual([]);

      const left = await inspect(install.config);
      expect(left.incidents).toHaveLength(1);
      expect(left.incidents[0]!.questionId === null).toBe(stage === 'incident-row');
      expect(left.rows.filter((r) => r.state === 'pending')).toHaveLength(stage === 'card-rows' ? 2 : 0);

      const second = spawnNode(CHILD, ['--config', install.config, '--cards', install.cards]);
      await second.waitFor('READY');
      second.send(['sweep']);
      await second.waitFor('SWEPT');
      second.send(['sweep']);
      await second.waitFor('SWEPT\nSWEPT');
      second.send([], true);
      expect((await second.exited).code, second.stderr()).toBe(0);

      expect(
        sent(install.cards)
          .map((c) => c.chat)
          .sort(),
      ).toEqual(['slack:C1', 'telegram:1']);
      const after = await inspect(install.config);
      expect(after.incidents).toHaveLength(1);
      expect(after.rows.map((r) => r.state)).toEqual(['sent', 'sent']);
    },
    120_000,
  );

  it('killed while sending: the card is not sent again; it is "delivery unknown" in /status', async () => {
    const install = await stalledInstall();
    const first = spawnNode(CHILD, ['--config', install.config, '--cards', install.cards, '--crash-at', 'sending']);
    await first.waitFor('READY');
    first.send(['sweep']);
    await first.waitFor('SENDING');
    first.child.kill('SIGKILL');
    await first.exited;
    const left = await inspect(install.config);
    expect(left.rows.some((r) => r.state === 'sending')).toBe(true);

    const second = spawnNode(CHILD, ['--config', install.config, '--cards', install.cards]);
    await second.waitFor('READY');
    second.send(['sweep', 'status']);
    await second.waitFor('STATUS');
    // A card still pending when the first process died is sent now — once its delivery job, which the
    // dead process had taken, is handed back by BullMQ's stalled-job check (within ~30 s).
    const wasSending = left.rows.filter((r) => r.state === 'sending').map((r) => r.id);
    await eventually(
      () => sent(install.cards),
      (cards) => cards.length === 2 - wasSending.length,
      'the pending card sent',
      { timeoutMs: 60_000 },
    );
    second.send([], true);
    expect((await second.exited).code, second.stderr()).toBe(0);

    const after = await inspect(install.config);
    for (const id of wasSending) expect(after.rows.find((r) => r.id === id)!.state).toBe('unknown');
    // Nothing was sent twice: a card that was being sent is never sent again blindly.
    const chats = sent(install.cards).map((c) => c.chat);
    expect(new Set(chats).size).toBe(chats.length);
    expect(chats.length).toBe(2 - wasSending.length);
    expect(after.incidents).toHaveLength(1);
    expect(second.stdout()).toContain(`delivery unknown: ${wasSending.length} message(s)`);

    // `kazma doctor` lists the open incident.
    const doctor = spawnNode(CLI, ['doctor', '--config', install.config]);
    await doctor.exited;
    expect(doctor.stdout()).toMatch(/! incidents: 1 open\n• inc_\S+ — task t_stalled stalled since/);
  }, 120_000);
});
