// With no embeddings endpoint answering, memory goes on by full text: a note is stored (without a vector)
// and recalled by its words, and the turn is never failed for it.
import { createServer } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log/index.ts';
import { EmbeddingsClient, MemoryStore } from '../../src/core/memory/index.ts';
import { Memory } from '../../src/core/memory/service.ts';
import { describeEachBackend } from '../helpers/databases.ts';

let port: number;
beforeAll(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describeEachBackend('memory without an embeddings endpoint', (db) => {
  const turn = { chat: 'telegram:5', requester: { platform: 'telegram', id: '5' } };
  const memory = () =>
    new Memory({
      store: new MemoryStore({ db: db().db, clock: { now: () => new Date('2026-12-05T10:00:00Z') } }),
      embeddings: new EmbeddingsClient({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        apiKey: '',
        model: 'm',
        timeoutMs: 2_000,
      }),
      recall: { minScore: 0.35, maxGap: 0.25, maxNotes: 6, maxTokens: 600, minBackground: 0.2 },
      zone: 'Asia/Kuwait',
      operatorName: () => undefined,
      logger: createLogger({ level: 'silent', pretty: false }),
    });

  it('stores by full text and recalls by words, in English and Arabic; nothing for an unrelated question', async () => {
    expect(
      (await memory().remember(turn, { text: 'My exam is on 14 January', source: 'stated', scope: 'person' })).outcome,
    ).toBe('stored');
    await memory().remember(turn, { text: 'امتحاني في الرابع عشر من يناير', source: 'stated', scope: 'person' });
    expect(await memory().recall(turn, 'When is my exam?')).toContain(
      '2026-12-05, the person said: My exam is on 14 January',
    );
    // Words match as written (the `simple` configuration stems nothing): "امتحاني" finds "امتحاني".
    expect(await memory().recall(turn, 'متى امتحاني؟')).toContain('امتحاني في الرابع عشر من يناير');
    expect(await memory().recall(turn, 'What is the weather like?')).toBeUndefined();
  });

  it('asks a failing endpoint again only after a pause, so a hanging one does not slow every turn', async () => {
    const asked: string[] = [];
    const failing = (async (url: string) => {
      asked.push(String(url));
      throw new Error('connect ECONNREFUSED');
    }) as typeof fetch;
    const warned: string[] = [];
    const logger = createLogger({ level: 'silent', pretty: false });
    const quiet = Object.assign(Object.create(logger), { warn: (_o: unknown, m: string) => void warned.push(m) });
    const paused = new Memory({
      store: new MemoryStore({ db: db().db, clock: { now: () => new Date('2026-12-05T10:00:00Z') } }),
      embeddings: new EmbeddingsClient({ baseUrl: 'http://e/v1', apiKey: '', model: 'm', timeoutMs: 2_000 }, failing),
      recall: { minScore: 0.35, maxGap: 0.25, maxNotes: 6, maxTokens: 600, minBackground: 0.2 },
      zone: 'UTC',
      operatorName: () => undefined,
      logger: quiet,
    });
    expect(await paused.embed('one')).toBeUndefined();
    expect(await paused.embed('two')).toBeUndefined();
    expect(asked).toEqual(['http://e/v1/embeddings']);
    expect(warned).toHaveLength(1);
  });
});
