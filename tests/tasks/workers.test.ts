// Background tasks across real processes on one PostgreSQL and one Redis: two `kazma worker`
// processes (with test tools) run the tasks; this process plays the chat process (platform surfaces,
// card delivery) with jobs.concurrency.swarm: 0, so every task runs on a worker.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefix } from '../../src/assemble.ts';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { migrateDatabase, openDatabase } from '../../src/core/db/index.ts';
import type { TaskState } from '../../src/core/db/schema/tasks.ts';
import { spawnNode, type Spawned } from '../agent/helpers/spawn.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { defaultStep } from '../fakes/llm-wire.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { createPgDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { STANDARD_STEPS } from '../helpers/pglite-template.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const CHILD = 'tests/tasks/fixtures/worker-child.ts';
const CHAT: ChatRef = 'telegram:1';
const OPS: ChatRef = 'slack:C1';
const MAYA = { platform: 'telegram', id: '42' };

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

const children: Spawned[] = [];
let chatSide: Assembled | undefined;
let database: FreshDatabase | undefined;
afterEach(async () => {
  for (const child of children.splice(0)) child.child.kill('SIGKILL');
  await chatSide?.close();
  await database?.dispose();
  chatSide = undefined;
  database = undefined;
  llm.requests.length = 0;
  llm.attempts.length = 0;
  llm.setDefault(defaultStep);
});

async function cluster(workers: number) {
  const created = await createPgDatabase();
  const opened = await openDatabase({ url: created.url, poolSize: 10 });
  await migrateDatabase(opened, [...STANDARD_STEPS]);
  database = {
    ...opened,
    dispose: async () => {
      await opened.close();
      await created.drop();
    },
  };
  const dir = mkdtempSync(join(tmpdir(), 'kazma-workers-'));
  const marker = join(dir, 'marker.log');
  writeFileSync(marker, '');
  const config = {
    database: { url: created.url },
    redis: { url: 'redis://127.0.0.1:6379' },
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: {
      operators: [
        { name: 'maya', telegram: '42' },
        { name: 'ana', slack: 'U1' },
      ],
    },
    approvals: { channels: [OPS] },
    turns: { lease_ttl: '3s' },
    // A killed worker's job goes to the other within 3–6 s, not the default 15–30 s.
    jobs: { lease_ttl: '3s' },
    shutdown: { timeout: '3s' },
    http: { port: 0 },
  };
  const spawnWorker = () => {
    const path = join(dir, `worker-${children.length}.yaml`);
    writeFileSync(
      path,
      JSON.stringify({ ...config, data_dir: join(dir, `data-${children.length}`), tools: { workspace: dir } }),
    );
    const child = spawnNode(CHILD, ['--config', path, '--marker', marker]);
    children.push(child);
    return child;
  };
  for (let i = 0; i < workers; i++) spawnWorker();
  await Promise.all(children.map((c) => c.waitFor('kazma worker ready', 90_000)));
  const prefix = queuePrefix(parseConfig(JSON.stringify(config), { env: {}, baseDir: dir }), { kind: 'postgres' });
  chatSide = await startAssembled(
    { ...config, jobs: { ...config.jobs, concurrency: { swarm: 0 } } },
    { database, queuePrefix: prefix },
  );
  const telegram = new RecordingSurface('telegram');
  const slack = new RecordingSurface('slack');
  chatSide.kazma.core.attachSurface(telegram);
  chatSide.kazma.core.attachSurface(slack);
  const core = chatSide.kazma.core;
  const startTask = async (goal: string) => {
    await core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      text: `/task ${goal}`,
    });
    const card = await eventually(
      () => telegram.cards,
      (cards) => cards.find((c) => c.card.title.startsWith('Task ')),
      'the status card',
      30_000,
    );
    return card.card.title.slice('Task '.length);
  };
  const reaches = (id: string, state: TaskState, timeoutMs = 30_000) =>
    eventually(
      () => core.tasks.get(id),
      (t) => t?.state === state && t,
      `task ${id} ${state}`,
      timeoutMs,
    );
  const marks = () => readFileSync(marker, 'utf8').split('\n').filter(Boolean);
  const workerPids = children.map((c) => String(c.child.pid));
  return {
    core,
    telegram,
    slack,
    startTask,
    reaches,
    marks,
    workerPids,
    spawnWorker,
    settled: () => chatSide!.settled(),
  };
}

describe('tasks on `kazma worker` processes', () => {
  it('a worker killed mid-tool: another worker takes the task up; the tool with an effect ran once, and the task says its outcome is unknown', async () => {
    const c = await cluster(2);
    llm.script({ toolCalls: [{ name: 'record_effect', args: { note: 'hang' } }] });
    const id = await c.startTask('note something');
    const [line] = await eventually(
      () => c.marks(),
      (lines) => lines.length > 0 && lines,
      'the tool started on a worker',
      30_000,
    );
    const pid = line!.split(' ')[1]!;
    expect(c.workerPids).toContain(pid);
    process.kill(Number(pid), 'SIGKILL');

    // The other worker takes the stalled job up, continues the task from its checkpoint, finds the
    // effect's receipt started-but-unfinished, and neither runs the tool again nor pretends it is done.
    const failed = await c.reaches(id, 'failed', 90_000);
    expect(failed.attempts).toBe(2);
    expect(failed.error).toMatch(/^I started `record_effect` at .* but never saw it finish .* I did not run it again/);
    expect(c.marks()).toEqual([`hang ${pid}`]);
    expect(llm.requests).toHaveLength(1);
    await eventually(
      () => c.telegram.texts(),
      (texts) => texts.length > 0 && texts,
      'the outcome in the origin chat',
      30_000,
    );
    await c.settled();
    expect(c.telegram.texts()).toEqual([`⚠️ Task ${id} failed: ${failed.error}`]);
  });

  it("a task with three subtasks on two workers: the three run in parallel; the parent's answer reaches the origin chat once", async () => {
    const c = await cluster(2);
    // Each subtask's model call is held until all three have been made: in series, the second would never
    // start while the first waits, whatever the machine's speed.
    const model = llm.holdNext(3);
    llm.setDefault((body) => {
      const asked = JSON.stringify(body.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '');
      return { text: asked.includes('Combine them into one answer') ? 'all three done' : 'part done' };
    });
    const parent = await c.core.tasks.start({
      goal: 'three parts',
      origin: CHAT,
      requester: MAYA,
      subtasks: ['part one', 'part two', 'part three'],
    });
    const parts = () =>
      llm.attempts.filter(
        (a) =>
          JSON.stringify(a.body.messages).includes('part ') &&
          !JSON.stringify(a.body.messages).includes('Combine them'),
      );
    await eventually(
      () => parts().length,
      (n) => n === 3,
      'all three subtasks in the model at once',
      30_000,
    );
    model.release();
    const done = await c.reaches(parent.id, 'done', 60_000);
    expect(done.result).toBe('all three done');
    expect(parts().map((a) => a.outcome)).toEqual(['held', 'held', 'held']);
    await eventually(
      () => c.telegram.texts(),
      (texts) => texts.length > 0 && texts,
      'the answer in the origin chat',
      30_000,
    );
    await c.settled();
    expect(c.telegram.texts()).toEqual([`✅ Task ${parent.id} is done:\n\nall three done`]);
  });

  it('SIGTERM while a task runs: the worker stops within shutdown.timeout and hands the task back; the next worker finishes it', async () => {
    const c = await cluster(1);
    llm.hangNext(1, 30_000); // the task's first model call would take 30 s
    const id = await c.startTask('think long');
    await eventually(
      () => llm.attempts.length,
      (n) => n > 0,
      'the task in the model',
      30_000,
    );
    const first = children[0]!;
    const stopping = Date.now();
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect((await c.core.tasks.get(id))!.state).toBe('running'); // handed back, not failed

    await c.spawnWorker().waitFor('kazma worker ready', 90_000);
    // Handed back, it is retried at once (2 s backoff) — not found only by BullMQ's stalled-job check (15–30 s).
    const done = await c.reaches(id, 'done', 12_000);
    expect(done.result).toBe('echo: think long');
    expect(done.attempts).toBe(2);
  });

  it('a task asks for approval; approved in this (chat) process, a worker resumes it and runs the tool once', async () => {
    const c = await cluster(1);
    llm.script({ toolCalls: [{ name: 'launch', args: { target: 'venus' } }] });
    const id = await c.startTask('launch to venus');
    await c.reaches(id, 'waiting_approval');
    const slackCard = await eventually(
      () => c.slack.cards,
      (cards) => cards[0],
      'the approval card on Slack',
      30_000,
    );
    const approve = slackCard.card.buttons.find((b) => b.id.endsWith(':once'))!.id;
    await c.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'slack',
      chat: OPS,
      actor: { platform: 'slack', id: 'U1' },
      actionId: approve,
    });

    const done = await c.reaches(id, 'done');
    expect(done.result).toBe('done: launched venus');
    expect(c.marks()).toEqual([`launch venus ${c.workerPids[0]}`]);
    await eventually(
      () => c.telegram.texts(),
      (texts) => texts.length > 0 && texts,
      'the answer in the origin chat',
      30_000,
    );
    await c.settled();
    const tgCard = c.telegram.cards.find((card) => card.card.buttons.some((b) => b.id.startsWith('apv:')))!;
    for (const card of [slackCard, tgCard]) expect(card.edits.at(-1)!.footer).toMatch(/^Approved once by ana on Slack/);
  });
});
