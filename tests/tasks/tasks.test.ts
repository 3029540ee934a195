// Background tasks in one process (the embedded default): `/task` starts a task on a thread of its
// own, a worker lane runs it, its status card moves in place and its answer reaches the origin chat
// once. A task that needs approval asks in its chat and approvals.channels; the first decision
// anywhere resumes it through a continuation job; cancel and expiry end it honestly.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRef } from '../../src/core/surface/index.ts';
import type { TaskState } from '../../src/core/db/schema/tasks.ts';
import { launch, launchTool } from '../approvals/helpers.ts';
import { defaultStep } from '../fakes/llm-wire.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { eventually } from '../helpers/eventually.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const CHAT: ChatRef = 'telegram:1';
const OPS: ChatRef = 'slack:C1';
const MAYA = { platform: 'telegram', id: '42' };
const ANA = { platform: 'slack', id: 'U1' };

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
let k: Assembled | undefined;
afterEach(async () => {
  await k?.close();
  k = undefined;
  llm.requests.length = 0;
  llm.setDefault(defaultStep);
});

async function rig(options: { clock?: FakeClock } = {}) {
  const launches = launchTool();
  k = await startAssembled(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
      access: {
        operators: [
          { name: 'maya', telegram: '42' },
          { name: 'ana', slack: 'U1' },
        ],
        users: ['telegram:77'],
      },
      approvals: { channels: [OPS], timeout: '10m' },
    },
    { tools: [launches.tool], ...(options.clock && { clock: options.clock }) },
  );
  const telegram = new RecordingSurface('telegram');
  const slack = new RecordingSurface('slack');
  k.kazma.core.attachSurface(telegram);
  k.kazma.core.attachSurface(slack);
  const core = k.kazma.core;
  const say = (text: string, actor = MAYA, chat = CHAT) =>
    core.pipeline.handle({ kind: 'message', eventId: randomUUID(), platform: actor.platform, chat, actor, text });
  /** Starts a task with `/task` and returns its id, read off its status card. */
  const startTask = async (goal: string) => {
    await say(`/task ${goal}`);
    const card = await eventually(
      () => telegram.cards,
      (cards) => cards.find((c) => c.card.title.startsWith('Task ') && c.card.fields.some((f) => f.value === goal)),
      'the status card',
    );
    return card.card.title.slice('Task '.length);
  };
  const reaches = (id: string, state: TaskState) =>
    eventually(
      () => core.tasks.get(id),
      (t) => t?.state === state && t,
      `task ${id} ${state}`,
    );
  return { k, core, telegram, slack, launches, say, startTask, reaches };
}

/**
 * A status card's edits follow the task's states in order and end on the last. An edit overtaken by a
 * newer one before it went out is never sent (the card shows only the newest), so one may be missing.
 */
function expectStatesInOrder(edits: string[], states: string[]): void {
  expect(edits.at(-1)).toBe(states.at(-1));
  let at = 0;
  for (const edit of edits) {
    while (at < states.length && states[at] !== edit) at++;
    expect(at, `edits ${JSON.stringify(edits)} follow ${JSON.stringify(states)} in order`).toBeLessThan(states.length);
    at++;
  }
}

describe('background tasks', () => {
  it('/task runs the goal on its own thread; the status card moves in place; the answer arrives once', async () => {
    const r = await rig();
    llm.script({ text: 'The capital of Kuwait is Kuwait City. 🇰🇼 عاصمة الكويت هي مدينة الكويت' });
    const id = await r.startTask('find the capital of Kuwait');
    const task = await r.reaches(id, 'done');
    await r.k.settled();

    expect(task.result).toBe('The capital of Kuwait is Kuwait City. 🇰🇼 عاصمة الكويت هي مدينة الكويت');
    expect(r.telegram.texts()).toEqual([
      `✅ Task ${id} is done:\n\nThe capital of Kuwait is Kuwait City. 🇰🇼 عاصمة الكويت هي مدينة الكويت`,
    ]);
    const status = r.telegram.cards.find((c) => c.card.title === `Task ${id}`)!;
    expect(status.card.fields.find((f) => f.label === 'State')!.value).toBe('⏳ queued');
    expectStatesInOrder(
      status.edits.map((e) => e.fields.find((f) => f.label === 'State')!.value),
      ['⚙️ running', '✅ done'],
    );

    // The task's conversation is its own: the chat's next turn does not carry the goal.
    await r.say('hello');
    await r.k.settled();
    expect(JSON.stringify(llm.requests.at(-1)!.messages)).not.toContain('capital of Kuwait');
    expect(r.telegram.texts().at(-1)).toBe('echo: hello');

    await r.say('/tasks');
    await r.k.settled();
    expect(r.telegram.texts().at(-1)).toBe(
      `Background tasks here, newest first:\n${id} — ✅ done — find the capital of Kuwait`,
    );
    await r.say('/status');
    await r.k.settled();
    expect(r.telegram.texts().at(-1)).toContain('tasks: 0 queued, 0 running, 0 waiting approval\nnext reminder: none');
  });

  it('a gated call pauses the task: cards in its chat and on Slack; approved on Slack, a worker resumes it; the tool runs once; both cards edited', async () => {
    const r = await rig();
    llm.script(launch({ target: 'venus' }));
    const id = await r.startTask('launch to venus');
    await r.reaches(id, 'waiting_approval');
    await r.k.settled();
    const slackCard = r.slack.cards[0]!;
    const tgCard = r.telegram.cards.find((c) => c.card.buttons.some((b) => b.id.startsWith('apv:')))!;
    expect(r.launches.runs).toEqual([]);

    const approve = slackCard.card.buttons.find((b) => b.id.endsWith(':once'))!.id;
    await r.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'slack',
      chat: OPS,
      actor: ANA,
      actionId: approve,
    });
    const done = await r.reaches(id, 'done');
    await r.k.settled();
    expect(r.launches.runs).toEqual([{ target: 'venus' }]);
    expect(done.result).toBe('done: launched venus');
    for (const card of [slackCard, tgCard]) expect(card.edits.at(-1)!.footer).toMatch(/^Approved once by ana on Slack/);
    expect(r.telegram.texts()).toEqual([`✅ Task ${id} is done:\n\ndone: launched venus`]);
    const states = r.telegram.cards
      .find((c) => c.card.title === `Task ${id}`)!
      .edits.map((e) => e.fields.find((f) => f.label === 'State')!.value);
    expectStatesInOrder(states, ['⚙️ running', '✋ waiting for approval', '⚙️ running', '✅ done']);
  });

  it('/task cancel while it waits for approval withdraws the question; nothing runs and no answer is posted', async () => {
    const r = await rig();
    llm.script(launch({ target: 'mars' }));
    const id = await r.startTask('launch to mars');
    await r.reaches(id, 'waiting_approval');
    // The cards are out before the cancel: a card still undelivered then goes out settled, with no buttons.
    await r.k.settled();
    await r.say('/task cancel nope');
    await r.say(`/task cancel ${id}`, { platform: 'telegram', id: '77' }); // not the requester, not an operator
    await r.say(`/task cancel ${id}`);
    await r.reaches(id, 'cancelled');
    await r.k.settled();
    expect(r.telegram.texts()).toEqual([
      'There is no task nope you may cancel.',
      `There is no task ${id} you may cancel.`,
      `Cancelled task ${id}.`,
    ]);
    expect(r.slack.cards[0]!.edits.at(-1)!.buttons).toEqual([]);
    expect(await r.core.approvals.list()).toEqual([]);
    const late = r.slack.cards[0]!.card.buttons.find((b) => b.id.endsWith(':once'))!.id;
    await r.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'slack',
      chat: OPS,
      actor: ANA,
      actionId: late,
    });
    await r.k.settled();
    expect(r.launches.runs).toEqual([]);
    expect(r.slack.privately.at(-1)!.text).toMatch(/^This question is closed/);
  });

  it('/task cancel while the task runs stops it at once: its model call is cut off, no answer is posted', async () => {
    const r = await rig();
    const hold = llm.holdNext(1);
    const calls = llm.attempts.length;
    const id = await r.startTask('think for a long time');
    await r.reaches(id, 'running');
    const call = await eventually(
      () => llm.attempts[calls],
      (attempt) => attempt,
      "the task's model call",
    );
    await r.say(`/task cancel ${id}`);
    await eventually(
      () => call.closedAt,
      (at) => at,
      "the task's model connection to close",
      2_000,
    );
    hold.release();
    await r.reaches(id, 'cancelled');
    await r.k.settled();
    expect(r.telegram.texts()).toEqual([`Cancelled task ${id}.`]);
    expect(llm.attempts).toHaveLength(calls + 1);
  });

  it('an approval nobody gives in time denies the call; the task is told and ends with its answer', async () => {
    const clock = new FakeClock();
    const r = await rig({ clock });
    llm.script(launch({ target: 'pluto' }));
    const id = await r.startTask('launch to pluto');
    await r.reaches(id, 'waiting_approval');
    clock.advance(11 * 60_000);
    await r.core.reconciler.sweep();
    const done = await r.reaches(id, 'done');
    expect(r.launches.runs).toEqual([]);
    expect(done.result).toMatch(/^done: .*expired/);
  });

  it('the agent may start a task with start_task, after approval; the task answers in the same chat', async () => {
    const r = await rig();
    llm.script({ toolCalls: [{ name: 'start_task', args: { goal: 'count the stars' } }] });
    // The chat's turn and the task's run call the model at about the same time: answer each by what it asks.
    llm.setDefault((body) => {
      const last = body.messages?.at(-1);
      if (last?.role === 'tool') return { text: 'I started a background task for that.' };
      return { text: JSON.stringify(last?.content).includes('count the stars') ? 'There are many stars.' : 'echo' };
    });
    await r.say('please count the stars in the background');
    await r.k.settled();
    const gateCard = r.telegram.cards.find((c) => c.card.buttons.some((b) => b.id.startsWith('apv:')))!;
    expect(gateCard.card.title).toContain('start_task');
    await r.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      actionId: gateCard.card.buttons.find((b) => b.id.endsWith(':once'))!.id,
    });
    const status = await eventually(
      () => r.telegram.cards,
      (cards) => cards.find((c) => c.card.title.startsWith('Task ')),
      'the task status card',
    );
    const id = status.card.title.slice('Task '.length);
    const done = await r.reaches(id, 'done');
    await r.k.settled();
    expect(done.result).toBe('There are many stars.');
    expect(done.goal).toBe('count the stars');
    expect(r.telegram.texts()).toEqual([
      'I started a background task for that.',
      `✅ Task ${id} is done:\n\nThere are many stars.`,
    ]);
  });

  it('start_task with subtasks: each runs as a task of its own; the parent combines their results into one answer', async () => {
    const r = await rig();
    llm.script({
      toolCalls: [
        {
          name: 'start_task',
          args: { goal: 'survey the planets', subtasks: ['look at mars', 'look at venus', 'look at pluto'] },
        },
      ],
    });
    llm.setDefault((body) => {
      const asked = JSON.stringify(body.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '');
      if (body.messages?.at(-1)?.role === 'tool') return { text: 'Started.' };
      if (asked.includes('Combine them into one answer'))
        return {
          text: `combined: ${['mars', 'venus', 'pluto'].filter((p) => asked.includes(`look at ${p} — done: ${p} is fine`)).join(', ')}`,
        };
      const planet = /look at (\w+)/.exec(asked)?.[1];
      return { text: planet ? `${planet} is fine` : 'echo' };
    });
    await r.say('survey the planets in parallel');
    await r.k.settled();
    const gate = r.telegram.cards.find((c) => c.card.buttons.some((b) => b.id.startsWith('apv:')))!;
    await r.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      actionId: gate.card.buttons.find((b) => b.id.endsWith(':once'))!.id,
    });
    const status = await eventually(
      () => r.telegram.cards,
      (cards) => cards.find((c) => c.card.title.startsWith('Task ')),
      'the parent status card',
    );
    const id = status.card.title.slice('Task '.length);
    const done = await r.reaches(id, 'done');
    await r.k.settled();
    expect(done.result).toBe('combined: mars, venus, pluto');
    // One answer in the chat: the parent's; the subtasks' answers went into it, and only the parent has a card.
    expect(r.telegram.texts().filter((t) => t.startsWith('✅'))).toEqual([
      `✅ Task ${id} is done:\n\ncombined: mars, venus, pluto`,
    ]);
    expect(r.telegram.cards.filter((c) => c.card.title.startsWith('Task '))).toHaveLength(1);
    expect(status.card.fields.find((f) => f.label === 'State')!.value).toBe('🧩 waiting for its subtasks');
  });

  it('a task whose model fails ends failed, says so once, and /tasks shows why', async () => {
    const r = await rig();
    llm.failNext(1, {
      status: 400,
      body: { error: { message: 'bad request: context too long', type: 'invalid_request_error', code: null } },
    });
    const id = await r.startTask('summarise everything');
    const failed = await r.reaches(id, 'failed');
    await r.k.settled();
    expect(failed.error).toMatch(/^The model openai:fake-model failed \(HTTP 400/);
    expect(r.telegram.texts()).toEqual([`⚠️ Task ${id} failed: ${failed.error}`]);
    await r.say('/tasks');
    await r.k.settled();
    expect(r.telegram.texts().at(-1)).toContain(`${id} — ⚠️ failed — summarise everything (`);
  });
});
