// A card sent twice — the platform took the first send but its answer was lost, so the outbox sent it
// again and never recorded the first — must not stay live for good. Nor may a card whose decision edit
// was lost to a crash. A tap on any card of a settled gate edits the tapped message to show how it was
// settled, and the tapper is told who decided.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Actor, InboundEvent, MessageRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { button, launch, launchTool, TG } from './helpers.ts';

const CHAT = 'telegram:1' as const;

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
});

const tap = (actionId: string, actor: Actor, message?: MessageRef): InboundEvent => ({
  kind: 'action',
  eventId: randomUUID(),
  platform: 'telegram',
  chat: CHAT,
  actor,
  actionId,
  ...(message && { message }),
});

it('a tap on an unrecorded copy of a settled gate’s card edits that copy to the settled card', async () => {
  const launches = launchTool();
  k = await startAssembled(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
      access: {
        operators: [
          { name: 'maya', telegram: '42' },
          { name: 'ana', telegram: '43' },
        ],
      },
    },
    { tools: [launches.tool] },
  );
  const surface = new RecordingSurface('telegram');
  k.kazma.core.attachSurface(surface);
  llm.script(launch({ target: 'venus' }), { text: 'done' });
  await k.kazma.core.pipeline.handle({
    kind: 'message',
    eventId: randomUUID(),
    platform: 'telegram',
    chat: CHAT,
    actor: TG.maya,
    text: 'launch to venus',
  });
  await k.settled();
  const sent = surface.cards.at(-1)!;
  // The platform also shows a copy Kazma never recorded (the first send, whose answer was lost).
  const copy = { ref: { chat: CHAT, id: 'copy-of-the-card' }, card: sent.card, edits: [] as typeof sent.edits };
  surface.cards.push(copy);

  await k.kazma.core.pipeline.handle(tap(button(sent.card, 'once'), TG.ana, sent.ref));
  await k.settled();
  expect(sent.edits.at(-1)!.buttons).toEqual([]);
  expect(copy.edits).toEqual([]);

  await k.kazma.core.pipeline.handle(tap(button(copy.card, 'deny'), TG.maya, copy.ref));
  await k.settled();
  expect(copy.edits.at(-1)!.buttons).toEqual([]);
  expect(copy.edits.at(-1)!.footer).toBe(sent.edits.at(-1)!.footer);
  expect(surface.privately.at(-1)!.text).toMatch(/ana/);
  expect(launches.runs).toHaveLength(1);
});
