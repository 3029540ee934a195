// A card sent twice — the platform took the first send but its answer was lost, so the outbox sent it
// again and never recorded the first — must not stay live for good. Nor may a card whose decision edit
// was lost to a crash. A tap on any card of a settled gate edits the tapped message to show how it was
// settled, and the tapper is told who decided. A tap also proves its card delivered: a card whose send's
// answer was lost is recorded as the tapped message, so the decision's edit reaches it; and a tap on an
// unrecorded copy of a gate still open decides and edits that copy too.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { outbox } from '../../src/core/db/index.ts';
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

async function cardShown() {
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
  return { k, launches, surface, sent, copy };
}

it('a tap on an unrecorded copy of a settled gate’s card edits that copy to the settled card', async () => {
  const { k, launches, surface, sent, copy } = await cardShown();

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

it('a tap on a card whose send was never recorded records it: the decision’s edit reaches it', async () => {
  const { k, launches, sent } = await cardShown();
  const db = k.database.db;
  // The platform took the card but its answer was lost to a stop: the row says "delivery unknown".
  await db.update(outbox).set({ state: 'unknown', messageRef: null }).where(eq(outbox.kind, 'card'));

  await k.kazma.core.pipeline.handle(tap(button(sent.card, 'once'), TG.ana, sent.ref));
  await k.settled();
  expect(launches.runs).toHaveLength(1);
  expect(sent.edits.at(-1)!.buttons).toEqual([]);
  const [card] = await db.select().from(outbox).where(eq(outbox.kind, 'card'));
  expect(card).toMatchObject({ state: 'sent', messageRef: sent.ref });
});

it('a tap on an unrecorded copy of an open gate’s card decides, and that copy shows the decision', async () => {
  const { k, launches, sent, copy } = await cardShown();
  await k.kazma.core.pipeline.handle(tap(button(copy.card, 'once'), TG.ana, copy.ref));
  await k.settled();
  expect(launches.runs).toHaveLength(1);
  expect(sent.edits.at(-1)!.buttons).toEqual([]);
  expect(copy.edits.at(-1)!.buttons).toEqual([]);
  expect(copy.edits.at(-1)!.footer).toBe(sent.edits.at(-1)!.footer);
});
