// A turn is durable where it matters, not at every step: a simple turn writes one checkpoint (its end),
// while a turn that runs a tool has the model's call in the checkpoint before the tool starts, so a
// crash mid-tool is taken up from that call (and the effect journal), never from a fresh model call.
import { sql } from 'drizzle-orm';
import { AIMessage } from '@langchain/core/messages';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCheckpointer, type Checkpointer } from '../../src/core/agent/checkpoint/checkpointer.ts';
import { defineTool } from '../../src/core/tools/define.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { defaultStep } from '../fakes/llm-wire.ts';
import { selectRows } from './checkpointer/rows.ts';
import { startTestCore, type TestCore } from './helpers/core.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(() => llm.setDefault(defaultStep));

describe('checkpoint durability per phase', () => {
  let t: TestCore;
  let reader: Checkpointer;
  /** What the checkpoint held each time the tool started: the last message and whether it asked for tools. */
  const seenByTool: Array<{ lastIsCall: boolean }> = [];
  const peek = defineTool({
    name: 'peek',
    description: 'Looks at the checkpoint.',
    tier: 'safe',
    effects: false,
    input: z.object({}),
    async run() {
      const [row] = await selectRows<{ thread_id: string }>(
        t.database.db,
        sql`select thread_id from langgraph.checkpoints order by checkpoint_id desc limit 1`,
      );
      const tuple = await reader.saver.getTuple({ configurable: { thread_id: row!.thread_id } });
      const messages = (tuple?.checkpoint.channel_values.messages ?? []) as AIMessage[];
      const last = messages.at(-1);
      seenByTool.push({ lastIsCall: !!last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0 });
      return 'peeked';
    },
  });

  beforeAll(async () => {
    t = await startTestCore({ baseURL: llm.baseURL, tools: [peek] });
    reader = await createCheckpointer(t.database);
  });
  afterAll(async () => {
    await reader.close();
    await t.close();
  });

  const checkpoints = async () =>
    Number(
      (await selectRows<{ n: string }>(t.database.db, sql`select count(*) as n from langgraph.checkpoints`))[0]!.n,
    );

  it('a simple turn writes one checkpoint, at its end', async () => {
    const before = await checkpoints();
    await t.say('hello');
    expect(t.surface.texts().at(-1)).toBe('echo: hello');
    expect(await checkpoints()).toBe(before + 1);
    await t.say('again');
    expect(t.surface.texts().at(-1)).toBe('echo: again');
    expect(await checkpoints()).toBe(before + 2);
  });

  it('a turn that runs a tool has the model call durable before the tool starts; the turn still ends with the answer', async () => {
    llm.script({ toolCalls: [{ name: 'peek', args: {} }] });
    await t.say('look');
    expect(seenByTool).toEqual([{ lastIsCall: true }]);
    expect(t.surface.texts().at(-1)).toBe('done: peeked');
  });
});
