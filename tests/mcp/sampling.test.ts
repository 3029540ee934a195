// A server allowed to sample (`sampling: true`) asks Kazma's model to write something: a person decides
// first, on a card in approvals.channels (first decision wins); only after Allow is the model called, and
// the server gets its words. Deny refuses it, and the server is told who denied.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { contentText } from '../fakes/llm-wire.ts';
import { kazmasOnOneDatabase } from '../helpers/assembled.ts';
import { eventually } from '../helpers/eventually.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { everythingStdio } from './servers.ts';

const CHAT: ChatRef = 'telegram:1';
const OPS: ChatRef = 'slack:C1';
const MAYA = { platform: 'telegram', id: '42' };
const ANA = { platform: 'slack', id: 'U1', displayName: 'Ana' };

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
const kazmas = kazmasOnOneDatabase();
afterEach(() => {
  llm.requests.length = 0;
});

async function start() {
  const k = await kazmas.start({
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: {
      operators: [
        { name: 'maya', telegram: '42' },
        { name: 'ana', slack: 'U1' },
      ],
    },
    approvals: { channels: [OPS] },
    mcp: { servers: [everythingStdio('everything', { sampling: true, trust: 'trusted' })] },
  });
  const telegram = new RecordingSurface('telegram');
  const slack = new RecordingSurface('slack');
  k.kazma.core.attachSurface(telegram);
  k.kazma.core.attachSurface(slack);
  const event = (e: Record<string, unknown>) =>
    k.kazma.core.pipeline.handle({
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      ...e,
    } as never);
  return { k, telegram, slack, event };
}

describe('MCP sampling requests', () => {
  it.each([['allow'], ['deny']])(
    'go through a card in approvals.channels; %s',
    async (answer) => {
      const { k, telegram, slack, event } = await start();
      llm.script(
        {
          toolCalls: [
            { name: 'mcp__everything__trigger-sampling-request', args: { prompt: 'write a haiku about the sea' } },
          ],
        },
        { text: 'Waves fold into foam' },
      );
      // The turn waits inside the tool call (the server waits for its sample): do not wait for it to settle.
      void event({ kind: 'message', text: 'ask the server to sample' });
      const card = await eventually(
        () => slack.cards,
        (cards) => cards.find((c) => c.card.title === 'MCP server "everything" asks to use the model'),
        'the sampling card',
      );
      expect(card.card.fields.find((f) => f.label === 'Prompt')!.value).toContain('write a haiku about the sea');
      expect(llm.requests).toHaveLength(1); // the model is not called for the server before a person decides
      const button = card.card.buttons.find((b) => b.id.endsWith(`:${answer}`))!.id;
      await k.kazma.core.pipeline.handle({
        kind: 'action',
        eventId: randomUUID(),
        platform: 'slack',
        chat: OPS,
        actor: ANA,
        actionId: button,
      });
      await eventually(
        () => telegram.texts(),
        (texts) => texts.length > 0,
        'the turn to end',
      );
      await k.settled();

      const toolResult = JSON.stringify(llm.requests.at(-1)!.messages!.find((m) => m.role === 'tool'));
      if (answer === 'allow') {
        // The sample request reached the model (after Allow), and its words went back to the server.
        const sampled = llm.requests.find((r) =>
          (r.messages ?? []).some(
            (m) => contentText(m.content).includes('write a haiku about the sea') && !r.tools?.length,
          ),
        );
        expect(sampled).toBeDefined();
        expect(toolResult).toContain('Waves fold into foam');
      } else {
        expect(toolResult).toMatch(/refused the sampling request: denied by ana/);
        expect(llm.requests.filter((r) => !r.tools?.length)).toHaveLength(0);
      }
      expect(card.edits.at(-1)?.buttons).toEqual([]);
    },
    90_000,
  );
});
