// A message's way through Kazma when the database's answers go missing (PostgreSQL through a proxy that
// breaks chosen statements' connections, as a failing network would). An event is acknowledged to its
// platform only once Kazma has seen it recorded and knows who works on it; anything less is "not
// recorded", so the platform delivers it again, and the redelivery is answered once. A reply that went
// out is never sent again because recording it failed.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { outbox } from '../../src/core/db/schema/outbox.ts';
import { InboxUnavailableError } from '../../src/core/chat/index.ts';
import type { InboundEvent } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { CHAT, OPERATOR, startTestCore, type TestCore } from '../agent/helpers/core.ts';
import type { FreshDatabase } from '../helpers/databases.ts';
import { waitForOutbox } from '../helpers/outbox.ts';
import { eventually } from '../helpers/eventually.ts';
import { statementTap } from '../helpers/pg-wire-tap.ts';
import { proxiedPostgres, type TapVerdict } from '../helpers/tcp-proxy.ts';

let llm: FakeLlm;
let t: TestCore | undefined;
let database: FreshDatabase | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await t?.close();
  await database?.dispose();
  t = database = undefined;
  llm.requests.length = 0;
});

/** Faults to come, each used once, on the first statement its pattern matches. */
const faults: Array<{ statement: RegExp; verdict: TapVerdict }> = [];

async function start(config: Record<string, unknown> = {}): Promise<TestCore> {
  faults.length = 0;
  ({ database } = await proxiedPostgres({
    tap: statementTap((text) => {
      const at = faults.findIndex((f) => f.statement.test(text));
      return at < 0 ? undefined : faults.splice(at, 1)[0]!.verdict;
    }),
  }));
  return (t = await startTestCore({ baseURL: llm.baseURL, database, config }));
}

const RECORD = /^insert into "inbox"/;
// A chat turn's replies are recorded as sent by the statement that ends its row: the chat's last listing,
// or, when that fails, the row's end on its own.
const END_MARKING_SENT = /^with "sent" as \(update "outbox"/;
// A row is taken on its own, or — the chat's next row, taken by the process that waited on it — in the
// statement that takes the chat's lease and lists its rows.
const TAKE =
  /^update "inbox" set "state" = \$1, "attempts" = "inbox"\."attempts" \+ 1|"taken" as \(update "inbox" set "state" = \$\d+, "attempts" = "inbox"\."attempts" \+ 1/;
const END_LISTING = /^with "ended" as \(update "inbox"/;
const READ_BACK = /^select .* from "inbox" where \("inbox"\."platform" = \$1 and "inbox"\."event_id" = \$2\)$/;
const message = (eventId: string, text: string): InboundEvent => ({
  kind: 'message',
  eventId,
  platform: 'telegram',
  chat: CHAT,
  actor: OPERATOR,
  text,
});

/**
 * Handles `event` and expects `reply` as the only answer, with one model call, after Kazma has stopped. The
 * outcome is 'duplicate' when this process's sweep of its own unstarted rows took the event up first.
 */
async function expectAnsweredOnce(core: TestCore, event: InboundEvent, reply: string): Promise<void> {
  expect(['handled', 'duplicate']).toContain(await core.core.pipeline.handle(event));
  expect(
    await eventually(
      async () => core.surface.texts(),
      (texts) => texts.length > 0 && texts,
      'the reply',
    ),
  ).toEqual([reply]);
  await core.close();
  t = undefined;
  expect(core.surface.texts()).toEqual([reply]);
  expect(llm.requests).toHaveLength(1);
}

/** The replies' outbox rows in write order: their state, and whether a send time and reference were recorded. */
async function replyRows() {
  const rows = await database!.db.select().from(outbox).orderBy(outbox.seq);
  return rows
    .filter((row) => row.id.startsWith('reply_'))
    .map((row) => ({ state: row.state, sent: row.sentAt !== null, ref: row.messageRef !== null }));
}

describe('a message whose statements lose their answers', () => {
  it('the write landed but its answer was lost, and it cannot be read back: not acknowledged; answered once', async () => {
    const core = await start();
    const readBackBreaks = Array.from({ length: 3 }, () => ({ statement: READ_BACK, verdict: 'break' as const }));
    faults.push({ statement: RECORD, verdict: 'lose-answer' }, ...readBackBreaks);
    const event = message('update-7', 'hello');
    // The retried write finds the row (a redelivery, as far as it can tell); whose it is could not be read.
    await expect(core.core.pipeline.accept(event)).rejects.toBeInstanceOf(InboxUnavailableError);
    expect(faults).toEqual([]);
    // The platform delivers it again.
    await expectAnsweredOnce(core, event, 'echo: hello');
  });

  it('the write landed but its answer was lost: the retried write finds it ours and it is answered once', async () => {
    const core = await start();
    faults.push({ statement: RECORD, verdict: 'lose-answer' });
    const event = message('update-8', 'hi there');
    await expectAnsweredOnce(core, event, 'echo: hi there');
    expect(faults).toEqual([]);
  });

  it('a stranger’s refused event whose write lost its answer: the retried write finds it this process’s own, and the stranger is told, once', async () => {
    const core = await start();
    faults.push({ statement: RECORD, verdict: 'lose-answer' });
    const stranger = { platform: 'telegram', id: '777' };
    const event: InboundEvent = {
      kind: 'message',
      eventId: 'update-20',
      platform: 'telegram',
      chat: 'telegram:777',
      actor: stranger,
      text: 'let me in',
    };
    expect(await core.core.pipeline.handle(event)).toBe('refused');
    expect(faults).toEqual([]);
    expect(core.surface.privately.map((p) => p.text)).toEqual([
      expect.stringContaining('⛔ Sorry, you are not on this Kazma'),
    ]);
    // The platform's own redelivery is a duplicate, and tells nobody again.
    expect(await core.core.pipeline.handle(event)).toBe('duplicate');
    expect(core.surface.privately).toHaveLength(1);
    expect(llm.requests).toHaveLength(0);
  });

  it('the chat’s turn took the event but lost the answer: it takes it again at once, not after turns.lease_ttl', async () => {
    // A lease_ttl longer than the test: only a take that knows the row is its own answers in time.
    const core = await start({ turns: { lease_ttl: '10m' } });
    faults.push({ statement: TAKE, verdict: 'lose-answer' });
    expect(await core.core.pipeline.handle(message('update-9', 'are you there?'))).toBe('handled');
    expect(faults).toEqual([]);
    expect(core.surface.texts()).toEqual(['echo: are you there?']);
    expect(llm.requests).toHaveLength(1);
  });

  it('a reply went out, then recording it as sent failed on a broken connection: it is not sent again', async () => {
    const core = await start();
    faults.push({ statement: END_LISTING, verdict: 'break' }, { statement: END_MARKING_SENT, verdict: 'break' });
    expect(await core.core.pipeline.handle(message('update-10', 'once only'))).toBe('handled');
    expect(faults).toEqual([]);
    await waitForOutbox(database!);
    expect(core.surface.texts()).toEqual(['echo: once only']);
    // The retry on a live connection recorded it, with the platform's reference.
    expect(await replyRows()).toEqual([{ state: 'sent', sent: true, ref: true }]);
  });

  for (const verdict of ['break', 'lose-answer'] as const) {
    it(`the listing that ends the chat's turn ${verdict === 'break' ? 'broke' : 'lost its answer'}: the row is ended on its own, and the chat goes on`, async () => {
      const core = await start({ turns: { lease_ttl: '10m' } });
      faults.push({ statement: END_LISTING, verdict });
      expect(await core.core.pipeline.handle(message('update-11', 'first'))).toBe('handled');
      expect(faults).toEqual([]);
      // Ended by the time its waiter was told, though not by the listing.
      expect((await core.core.inbox.get({ platform: 'telegram', eventId: 'update-11' }))?.state).toBe('done');
      expect(await core.core.pipeline.handle(message('update-12', 'second'))).toBe('handled');
      expect((await core.core.inbox.get({ platform: 'telegram', eventId: 'update-12' }))?.state).toBe('done');
      expect(core.surface.texts()).toEqual(['echo: first', 'echo: second']);
      expect(llm.requests).toHaveLength(2);
      // Each reply recorded as sent with its row's end (the first's by the end on its own).
      expect(await replyRows()).toEqual([
        { state: 'sent', sent: true, ref: true },
        { state: 'sent', sent: true, ref: true },
      ]);
    });
  }
});
