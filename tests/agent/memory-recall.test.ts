// Recall before each turn, through Kazma assembled as `kazma start` assembles it: a note of the person
// is in the first model request of a later turn, fenced, on any platform the person writes from; an
// unrelated question, or another person, recalls nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/core/memory/index.ts';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { fakeEmbedding, startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { BACKENDS, freshDatabase } from '../helpers/databases.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

for (const backend of BACKENDS) {
  describe(`memory recall before a turn [${backend}]`, () => {
    let llm: FakeLlm;
    let k: Assembled;
    beforeAll(async () => {
      llm = await startFakeLlm();
      k = await startAssembled(
        {
          model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
          memory: { embeddings: { name: 'fake-embed' } },
          access: { operators: [{ name: 'maya', telegram: '42', slack: 'UMAYA' }], users: ['telegram:77'] },
        },
        { database: await freshDatabase(backend) },
      );
      k.kazma.core.attachSurface(new RecordingSurface('telegram'));
      k.kazma.core.attachSurface(new RecordingSurface('slack'));
      const store = new MemoryStore({ db: k.database.db, clock: { now: () => new Date('2026-12-01T09:00:00Z') } });
      const text = 'My exam is on 14 January';
      await store.remember({
        owner: 'person:maya',
        text,
        source: 'stated',
        embedding: { model: 'fake-embed', vector: fakeEmbedding(text) },
      });
    });
    afterAll(async () => {
      await k.close();
      await k.database.dispose();
      await llm.close();
    });

    async function say(platform: 'telegram' | 'slack', chat: ChatRef, user: string, text: string) {
      await k.kazma.core.pipeline.handle({
        kind: 'message',
        eventId: randomUUID(),
        platform,
        chat,
        actor: { platform, id: user },
        text,
      });
      await k.settled();
    }

    /** The system prompt of the model request `text` led to. */
    async function promptFor(platform: 'telegram' | 'slack', chat: ChatRef, user: string, text: string) {
      const before = llm.requests.length;
      await say(platform, chat, user, text);
      const request = llm.requests[before];
      expect(request, 'one model request').toBeDefined();
      return String(request!.messages?.find((m) => m.role === 'system')?.content ?? '');
    }

    it('puts the person’s note in the first request of a new thread, fenced with its date and source', async () => {
      await say('telegram', 'telegram:42', '42', '/new');
      const prompt = await promptFor('telegram', 'telegram:42', '42', 'When is my exam?');
      expect(prompt).toContain('Recalled notes');
      expect(prompt).toMatch(/«outside:[0-9a-f]+» Text from memory follows/);
      expect(prompt).toContain('2026-12-01, the person said: My exam is on 14 January');
    });

    it('recalls nothing for an unrelated question', async () => {
      const prompt = await promptFor('telegram', 'telegram:42', '42', 'What is the weather like in Kuwait?');
      expect(prompt).not.toContain('Recalled notes');
    });

    it('remembers through the model’s memory_store call without a card, and recalls it after /new', async () => {
      const args = { text: 'My sister is called Sara', subject: 'sister', source: 'stated' };
      llm.script({ toolCalls: [{ name: 'memory_store', args }] }, { text: 'Noted.' });
      await say('telegram', 'telegram:42', '42', 'Remember: my sister is called Sara');
      await say('telegram', 'telegram:42', '42', '/new');
      const prompt = await promptFor('telegram', 'telegram:42', '42', 'What is my sister called?');
      expect(prompt).toContain('the person said: My sister is called Sara');
      expect(prompt).not.toContain('14 January');
    });

    it('is one memory for the person on every platform, and none of it for someone else', async () => {
      expect(await promptFor('slack', 'slack:DMAYA', 'UMAYA', 'my exam: which day?')).toContain('14 January');
      expect(await promptFor('telegram', 'telegram:77', '77', 'When is my exam?')).not.toContain('Recalled notes');
    });
  });
}
