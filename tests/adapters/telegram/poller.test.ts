// Long polling holds its offset while an update cannot be recorded because the database is down, so
// nothing is lost. An update that fails for any other reason (a bug in handling it, an input nobody
// foresaw) would fail the same way on every try: it is logged and passed over, so the updates behind it
// — every chat's — are not held up for ever (before: polling stalled until a restart, and after it).
import { Api } from 'grammy';
import type { Update } from 'grammy/types';
import { afterEach, expect, it } from 'vitest';
import { InboxUnavailableError } from '../../../src/core/chat/index.ts';
import { TelegramPoller } from '../../../src/adapters/telegram/poller.ts';
import { startFakeTelegram, type FakeTelegram } from '../../fakes/telegram/index.ts';
import { eventually } from '../../helpers/eventually.ts';
import { MAYA } from './harness.ts';

let fake: FakeTelegram | undefined;
let poller: TelegramPoller | undefined;
afterEach(async () => {
  await poller?.stop();
  await fake?.close();
});

it('an update whose handling keeps failing for a reason other than the database is passed over; one the database could not take is retried until it is', async () => {
  fake = await startFakeTelegram();
  fake.addChat({ id: MAYA.id, type: 'private', first_name: MAYA.first_name });
  const taken: string[] = [];
  const attempts = new Map<string, number>();
  let databaseDown = 2;
  poller = new TelegramPoller({
    api: new Api(fake.token, { apiRoot: fake.apiRoot }),
    timeoutSeconds: 0,
    retryMs: 10,
    take: async (update: Update) => {
      const text = update.message?.text ?? '';
      attempts.set(text, (attempts.get(text) ?? 0) + 1);
      if (text === 'poison') throw new TypeError("Cannot read properties of undefined (reading 'id')");
      if (text === 'during an outage' && databaseDown-- > 0)
        throw new InboxUnavailableError(new Error('connection refused'));
      taken.push(text);
      return 'taken';
    },
  });
  await poller.start((error) => {
    throw error;
  });
  for (const text of ['first', 'poison', 'during an outage', 'after'])
    fake.sendUserMessage({ from: MAYA, chatId: MAYA.id, text });
  await eventually(
    () => taken,
    (t) => t.length === 3,
    'the updates behind the poisoned one',
  );
  expect(taken).toEqual(['first', 'during an outage', 'after']);
  expect(attempts.get('poison')).toBe(1);
  expect(attempts.get('during an outage')).toBe(3);
});
