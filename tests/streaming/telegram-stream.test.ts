// A streamed answer on Telegram, with the real adapter against the fake Bot API and a fake model that
// writes ~60 words over ~2.5 s. In a group: a partial shows before the model's last chunk, the message is
// edited at most once per `streaming.telegram.edit_interval`, and the one message ends as the whole
// answer. In a private chat: draft previews (sendMessageDraft), then the answer sent once.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { outbox } from '../../src/core/db/index.ts';
import type { MessageRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { watchPgliteStatements } from '../helpers/pglite-statements.ts';
import { MAYA, startHarness, type Harness } from '../adapters/telegram/harness.ts';

const GROUP = -1001000;
let llm: FakeLlm;
let h: Harness | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  llm.attempts.length = 0;
});

/** ~60 words: Arabic, emoji (a ZWJ family among them), and bold that a cut leaves open. */
const ANSWER = Array.from({ length: 12 }, (_, i) => `Step ${i + 1}: **check** the مرحبا بالعالم 👨‍👩‍👧 logs.`).join(
  ' ',
);

const WORD_DELAY_MS = 40;

it('in a group, shows the answer as the model writes it, in one message that ends as the whole answer', async () => {
  h = await startHarness({
    modelBaseUrl: llm.baseURL,
    groups: 'all',
    config: { streaming: { start_after: '200ms', telegram: { edit_interval: '300ms' } } },
  });
  llm.script({ text: ANSWER, pacing: { words: true, delayMs: WORD_DELAY_MS } });
  h.say({ chatId: GROUP, from: MAYA, text: 'how do I check?' });
  await eventually(
    () => h!.fake.messages(GROUP),
    (messages) => messages.length > 0,
    'the first partial answer',
  );
  await h.settled();
  const streamEnded = llm.attempts.at(-1)!.endedAt!;
  const sends = h.fake.calls.of('sendMessage').filter((c) => c.ok);
  // One message for the answer, shown before the model wrote its last words.
  expect(sends).toHaveLength(1);
  expect(sends[0]!.at).toBeLessThan(streamEnded);
  // Edited into the whole answer, nothing added (no cursor), the bold rendered as bold.
  const [message] = h.fake.messages(GROUP);
  expect(message!.history[0]!.text.length).toBeLessThan(ANSWER.replaceAll('**', '').length);
  expect(message!.text).toBe(ANSWER.replaceAll('**', ''));
  expect(message!.history.length).toBeGreaterThan(0);
  // Every partial was valid HTML for Telegram: an open ** was closed, never sent as a raw marker.
  for (const version of [...message!.history, message!]) expect(version.text).not.toContain('**');
  // Edits within the rate: the stream lasted ~2.5 s, one edit per 300 ms at most (plus the final one).
  const edits = h.fake.calls.of('editMessageText').filter((c) => c.ok);
  const streamMs = streamEnded - llm.attempts.at(-1)!.at;
  expect(edits.length).toBeLessThanOrEqual(Math.ceil(streamMs / 300) + 2);
  for (let i = 1; i < edits.length - 1; i++) expect(edits[i]!.at - edits[i - 1]!.at).toBeGreaterThanOrEqual(250);
});

it('in a private chat, shows draft previews as the model writes, then sends the answer once', async () => {
  const database = await freshDatabase('pglite');
  const statements = watchPgliteStatements(database.pglite!, { record: true });
  h = await startHarness({ modelBaseUrl: llm.baseURL, database, config: { streaming: { start_after: '200ms' } } });
  const harness = h;
  // The harness leaves a database it was given open: closed after it.
  h = { ...harness, close: () => harness.close().then(() => database.dispose()) };
  await h.settled();
  statements.take();
  llm.script({ text: ANSWER, pacing: { words: true, delayMs: WORD_DELAY_MS } });
  h.say({ chatId: MAYA.id, from: MAYA, text: 'how do I check?' });
  await h.settled();
  const streamEnded = llm.attempts.at(-1)!.endedAt!;
  const previews = h.fake.calls.of('sendMessageDraft').filter((c) => c.ok);
  expect(previews.length).toBeGreaterThan(0);
  expect(previews[0]!.at).toBeLessThan(streamEnded);
  // One draft, updated in place (the same draft_id); then the answer for good, no message edited.
  expect(new Set(previews.map((c) => c.body.draft_id)).size).toBe(1);
  expect(h.fake.messages(MAYA.id).map((m) => m.text)).toEqual([ANSWER.replaceAll('**', '')]);
  expect(h.fake.calls.of('editMessageText')).toHaveLength(0);
  // A preview is no message: nothing to find after a crash, so no record of it was reserved, even for a moment,
  // and none is looked for to end when the answer takes over (a statement a turn for nothing).
  expect(await draftRows(h)).toEqual([]);
  expect(statements.take().filter((text) => /^update "outbox" .*"owner_kind" = /.test(text))).toEqual([]);
});

it('where the server refuses draft previews, a private chat gets a message sent then edited', async () => {
  h = await startHarness({ modelBaseUrl: llm.baseURL, config: { streaming: { start_after: '200ms' } } });
  h.fake.failNext('sendMessageDraft', { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } });
  llm.script({ text: ANSWER, pacing: { words: true, delayMs: WORD_DELAY_MS } });
  h.say({ chatId: MAYA.id, from: MAYA, text: 'how do I check?' });
  await h.settled();
  expect(h.fake.calls.of('sendMessageDraft').filter((c) => c.ok)).toHaveLength(0);
  const [message, ...rest] = h.fake.messages(MAYA.id);
  expect(rest).toEqual([]);
  expect(message!.text).toBe(ANSWER.replaceAll('**', ''));
  expect(message!.history.length).toBeGreaterThan(0);
  // The draft asked as a preview had no record reserved, so it was not posted in its place: the message was
  // posted by a later draft, under a key reserved first (its row is the reserved one, ended by the answer).
  const rows = await draftRows(h);
  expect(rows).toHaveLength(1);
  const ref = rows[0]!.messageRef as MessageRef | null;
  expect(rows[0]!.id).toBe(`draft_${ref?.draft}`);
  expect(ref?.id).toBeDefined();
});

it('previews refused after some were shown: the message taking over is posted under a reserved key', async () => {
  h = await startHarness({ modelBaseUrl: llm.baseURL, config: { streaming: { start_after: '200ms' } } });
  llm.script({ text: ANSWER, pacing: { words: true, delayMs: WORD_DELAY_MS } });
  h.say({ chatId: MAYA.id, from: MAYA, text: 'how do I check?' });
  const fake = h.fake;
  await eventually(
    () => fake.calls.of('sendMessageDraft').filter((c) => c.ok),
    (previews) => previews.length > 0,
    'a first preview',
  );
  fake.failNext('sendMessageDraft', { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request' } });
  await h.settled();
  const [message, ...rest] = fake.messages(MAYA.id);
  expect(rest).toEqual([]);
  expect(message!.text).toBe(ANSWER.replaceAll('**', ''));
  // The refused preview was not posted as a message with no record behind it: the next draft was, reserved.
  const rows = await draftRows(h);
  expect(rows).toHaveLength(1);
  const ref = rows[0]!.messageRef as MessageRef | null;
  expect(rows[0]!.id).toBe(`draft_${ref?.draft}`);
});

it('a quick answer (within streaming.start_after) arrives as one message with no edits', async () => {
  h = await startHarness({ modelBaseUrl: llm.baseURL });
  h.say({ chatId: MAYA.id, from: MAYA, text: 'ping' });
  await h.settled();
  expect(h.fake.messages(MAYA.id).map((m) => m.text)).toEqual(['echo: ping']);
  expect(h.fake.calls.of('editMessageText')).toHaveLength(0);
});

it('streaming.enabled: false sends the answer whole, even from a slow model', async () => {
  h = await startHarness({
    modelBaseUrl: llm.baseURL,
    config: { streaming: { enabled: false, start_after: '100ms' } },
  });
  llm.script({ text: ANSWER, pacing: { words: true, delayMs: 10 } });
  h.say({ chatId: MAYA.id, from: MAYA, text: 'how do I check?' });
  await h.settled();
  expect(h.fake.messages(MAYA.id).map((m) => m.text)).toEqual([ANSWER.replaceAll('**', '')]);
  expect(h.fake.calls.of('editMessageText')).toHaveLength(0);
  expect(llm.requests.at(-1)?.stream).not.toBe(true);
});

/** The records of the drafts streamed answers were shown in (core/outbox DraftRecords). */
async function draftRows(harness: Harness) {
  return (await harness.database.db.select().from(outbox)).filter((row) => row.ownerKind === 'draft');
}
