// A task with no chat of its own, and no approvals.channels to ask in, cannot show anyone a question:
// a call that needs approval is denied at once with that reason (the model is told, the task ends),
// instead of waiting for a decision nobody can make.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchTool } from '../approvals/helpers.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { eventually } from '../helpers/eventually.ts';

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
});

async function chatlessTask(channels: string[]) {
  const launches = launchTool();
  k = await startAssembled(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
      access: { operators: [{ name: 'maya', telegram: '42' }] },
      approvals: { channels },
    },
    { tools: [launches.tool] },
  );
  llm.script(
    { toolCalls: [{ name: 'launch', args: { target: 'probe' } }] },
    { text: 'I could not launch it: nobody could approve.' },
  );
  const task = await k.kazma.core.tasks.start({
    goal: 'launch the probe',
    requester: { platform: 'telegram', id: '42' },
  });
  return { launches, id: task.id };
}

describe('a task with nowhere to ask', () => {
  it('is denied with the reason, and the tool never runs', async () => {
    const { launches, id } = await chatlessTask([]);
    const done = await eventually(
      () => k!.kazma.core.tasks.get(id),
      (t) => t?.state === 'done' && t,
      'the task done',
    );
    expect(done.result).toBe('I could not launch it: nobody could approve.');
    expect(launches.runs).toEqual([]);
    const toolAnswer = JSON.stringify(llm.requests.at(-1));
    expect(toolAnswer).toContain(
      'denied: nobody could be asked: this work has no chat and approvals.channels is empty',
    );
    expect(await k!.kazma.core.approvals.list({})).toEqual([]);
  }, 60_000);

  it('asks in approvals.channels when there are some (control)', async () => {
    const { launches, id } = await chatlessTask(['slack:C1']);
    await eventually(
      () => k!.kazma.core.tasks.get(id),
      (t) => t?.state === 'waiting_approval' && t,
      'the task waiting for approval',
    );
    expect(launches.runs).toEqual([]);
    expect((await k!.kazma.core.approvals.list({})).map((g) => g.call.tool)).toEqual(['launch']);
  }, 60_000);
});
