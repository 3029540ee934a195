// The guard list: one ordered, named list of checks that runs before any effect. Pins its order, shows
// that a call refused by it after an approval leaves no effect receipt and tells the model why, and that a
// guard that breaks refuses rather than lets the call through.
import { existsSync } from 'node:fs';
import { mkdir, rename, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { Command, INTERRUPT, type Interrupt } from '@langchain/langgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ModelChains } from '../../src/core/agent/model/chain-provider.ts';
import { createCheckpointer, type Checkpointer } from '../../src/core/agent/checkpoint/checkpointer.ts';
import type { GateAnswer } from '../../src/core/agent/graph/gate-node.ts';
import { buildAgentGraph } from '../../src/core/agent/graph/graph.ts';
import { journalCallId } from '../../src/core/agent/graph/state.ts';
import type { ApprovalQuestion } from '../../src/core/approvals/port.ts';
import { EffectJournal } from '../../src/core/effects/journal.ts';
import { RefusedBeforeEffect } from '../../src/core/effects/refused.ts';
import { shellTool } from '../../src/core/tools/builtin/index.ts';
import { defineTool } from '../../src/core/tools/define.ts';
import {
  createGuardList,
  firstRefusal,
  GUARD_ORDER,
  GuardListError,
  type Guard,
} from '../../src/core/tools/guards/index.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { contentText } from '../fakes/llm-wire.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { fakeSettings } from '../agent/model/settings.ts';
import { makeWorkspace } from './fixture.ts';

type Paused = { [INTERRUPT]?: Interrupt<ApprovalQuestion>[] };

const seen: string[] = [];
/** A guard that records that it ran and refuses when the call's text names it. */
const named = (name: string): Guard => ({
  name,
  check({ args }) {
    seen.push(name);
    if (args.text === `no-${name}`) throw new RefusedBeforeEffect(`${name} says no`);
  },
});
const ran: string[] = [];
const echo = defineTool({
  name: 'echo',
  description: 'echo',
  tier: 'safe',
  effects: true,
  input: z.object({ text: z.string() }),
  precheck({ text }) {
    seen.push('policy');
    if (text === 'no-policy') throw new RefusedBeforeEffect('policy says no');
  },
  async run({ text }) {
    ran.push(text);
    return text;
  },
});

describe('the guard list', () => {
  it('runs in this order; a later issue adds its guard at its named position', () => {
    // Today only the tools' own prechecks; commitment (authorizeEffect) and egress come with issue 17.
    expect(GUARD_ORDER).toEqual(['policy', 'commitment', 'egress']);
    expect(createGuardList().map((g) => g.name)).toEqual(['policy']);
    // The position decides the order, not the order the options were written in.
    const full = createGuardList({ egress: named('egress'), commitment: named('commitment') });
    expect(full.map((g) => g.name)).toEqual(['policy', 'commitment', 'egress']);
    expect(createGuardList({ egress: named('egress') }).map((g) => g.name)).toEqual(['policy', 'egress']);
  });

  it('refuses an unknown position, a replaced policy, and a guard named for another position', () => {
    expect(() => createGuardList({ vault: named('vault') } as never)).toThrow(GuardListError);
    expect(() => createGuardList({ vault: named('vault') } as never)).toThrow(
      /not a guard position; use one of policy, commitment, egress/,
    );
    expect(() => createGuardList({ policy: named('policy') } as never)).toThrow(/cannot be replaced/);
    expect(() => createGuardList({ commitment: named('egress') })).toThrow(/named "egress"; name it "commitment"/);
  });

  it('stops at the first refusal, in order, and says why', async () => {
    const guards = createGuardList({ commitment: named('commitment'), egress: named('egress') });
    const ctx = { workspace: '/nonexistent', env: {} };
    seen.length = 0;
    expect(await firstRefusal(guards, { tool: echo, args: { text: 'fine' } }, ctx)).toBeUndefined();
    expect(seen).toEqual(['policy', 'commitment', 'egress']);
    seen.length = 0;
    expect(await firstRefusal(guards, { tool: echo, args: { text: 'no-commitment' } }, ctx)).toBe('commitment says no');
    expect(seen).toEqual(['policy', 'commitment']);
    seen.length = 0;
    expect(await firstRefusal(guards, { tool: echo, args: { text: 'no-policy' } }, ctx)).toBe('policy says no');
    expect(seen).toEqual(['policy']);
  });

  it('fails closed: a guard that breaks refuses the call, before the card and before the effect', async () => {
    const broken: Guard = {
      name: 'commitment',
      check: () => {
        throw new TypeError('settings table unreadable');
      },
    };
    const registry = new ToolRegistry({ guards: createGuardList({ commitment: broken }) }).register(echo);
    const ctx = { workspace: '/nonexistent', env: {} };
    const reason = 'the safety check of "echo" failed (commitment): settings table unreadable';
    expect(await registry.classify('echo', { text: 'hi' }, ctx)).toEqual({ kind: 'refuse', reason });
    ran.length = 0;
    expect(await registry.execute('echo', { text: 'hi' }, ctx)).toEqual({
      ok: false,
      error: `refused: ${reason}`,
      refused: true,
    });
    expect(ran).toEqual([]);
  });

  it('acts only after its guard passed, and once per pass', async () => {
    const registry = new ToolRegistry({ guards: createGuardList({ egress: named('egress') }) }).register(echo);
    const ctx = { workspace: '/nonexistent', env: {} };
    ran.length = 0;
    const unguarded = registry.prepare('echo', { text: 'hi' }, ctx);
    expect(await unguarded.run()).toMatchObject({ ok: false, refused: true });
    const refused = registry.prepare('echo', { text: 'no-egress' }, ctx);
    expect(await refused.guard()).toEqual({ ok: false, error: 'refused: egress says no', refused: true });
    expect(await refused.run()).toMatchObject({ ok: false, refused: true });
    expect(ran).toEqual([]);
    const good = registry.prepare('echo', { text: 'hi' }, ctx);
    expect(await good.guard()).toBeUndefined();
    expect(await good.run()).toEqual({ ok: true, output: 'hi' });
    expect(await good.run()).toMatchObject({ ok: false, refused: true });
    expect(ran).toEqual(['hi']);
  });
});

describe('a call the guards refuse after its approval', () => {
  let llm: FakeLlm;
  let database: FreshDatabase;
  let checkpointer: Checkpointer;
  let ws: Awaited<ReturnType<typeof makeWorkspace>>;
  let outside: Awaited<ReturnType<typeof makeWorkspace>>;
  beforeAll(async () => {
    [llm, database, ws, outside] = await Promise.all([
      startFakeLlm(),
      freshDatabase('pglite'),
      makeWorkspace(),
      makeWorkspace(),
    ]);
    checkpointer = await createCheckpointer(database);
  });
  afterAll(async () => {
    await checkpointer.close();
    await database.dispose();
    await llm.close();
    await ws.cleanup();
    await outside.cleanup();
  });

  it('writes no effect receipt, has no effect, and tells the model why', async () => {
    const registry = new ToolRegistry().register(shellTool());
    const journal = new EffectJournal(database.db);
    const graph = buildAgentGraph({
      chains: new ModelChains({ settings: fakeSettings(llm.baseURL, { max_retries: 0 }), registry }),
      systemPrompt: () => 'test',
      registry,
      isGranted: async () => false,
      toolContext: () => ws.ctx,
      journal,
      checkpointer: checkpointer.saver,
    });
    const cfg = { configurable: { thread_id: 'guarded', __pregel_strict_resume: true }, durability: 'sync' as const };
    await mkdir(join(ws.dir, 'sub'));
    llm.script({
      toolCalls: [
        { name: 'shell', args: { command: 'touch sub/made.txt' } },
        { name: 'shell', args: { command: 'touch other.txt' } },
      ],
    });
    const approve = (paused: Paused): GateAnswer => {
      const question = paused[INTERRUPT]?.[0];
      expect(question?.value?.tool).toBe('shell');
      return { callId: question!.value!.callId, decision: 'once', by: 'maya' };
    };

    // Inside the workspace when its card is shown: the policy lets the first call through to a person,
    // who approves it; the gate then asks about the second call.
    let paused = (await graph.invoke({ messages: [new HumanMessage('make two files')] }, cfg)) as Paused;
    const first = approve(paused);
    paused = (await graph.invoke(new Command({ resume: { [paused[INTERRUPT]![0]!.id!]: first } }), cfg)) as Paused;
    const second = approve(paused);
    expect(second.callId).not.toBe(first.callId);

    // While the second card waits, `sub` becomes a link out of the workspace. The first call's approval
    // is already recorded and the gate does not look at it again: only the guards before the effect can.
    await rename(join(ws.dir, 'sub'), join(ws.dir, 'sub-old'));
    await symlink(outside.dir, join(ws.dir, 'sub'));
    await graph.invoke(new Command({ resume: { [paused[INTERRUPT]![0]!.id!]: second } }), cfg);

    expect(existsSync(join(ws.dir, 'other.txt'))).toBe(true);
    expect(existsSync(join(outside.dir, 'made.txt'))).toBe(false);
    const toolMessages = (llm.requests.at(-1)?.messages ?? []).filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual([first.callId, second.callId]);
    expect(contentText(toolMessages[0]?.content)).toMatch(/^refused: .*outside the workspace/);
    // Nothing ran, so nothing was written: a receipt would claim an effect that never began.
    const messages = (await graph.getState(cfg)).values.messages as Array<{ id?: string; tool_calls?: unknown[] }>;
    const index = messages.findIndex((m) => m.tool_calls?.length);
    expect(index).toBeGreaterThanOrEqual(0);
    const key = (callId: string) => ({
      threadId: 'guarded',
      callId: journalCallId({ message: messages[index]!, index }, callId),
    });
    expect(await journal.lookup(key(first.callId))).toBeUndefined();
    expect(await journal.lookup(key(second.callId))).toMatchObject({ tool: 'shell', state: 'finished' });
  });
});
