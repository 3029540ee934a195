// memory_store, memory_search and memory_forget through the one path every tool call takes (ToolRegistry):
// storing runs at once (the person's own memory, nothing outside changes), forgetting asks a person first
// and the card lists what goes; all act on the memory of whoever asked, never another's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log/index.ts';
import { MemoryStore } from '../../src/core/memory/index.ts';
import { Memory } from '../../src/core/memory/service.ts';
import { memoryTools } from '../../src/core/memory/tools.ts';
import type { ToolContext } from '../../src/core/tools/define.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { fakeEmbedding, startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { EmbeddingsClient } from '../../src/core/memory/embeddings.ts';

const turn = (id: string, chat = `telegram:${id}`) => ({
  chat,
  requester: { platform: 'telegram', id },
  threadId: `${chat}#1`,
});
const as = (id: string): ToolContext => ({ workspace: '/nonexistent', env: {}, turn: turn(id) });

let database: FreshDatabase;
let llm: FakeLlm;
let registry: ToolRegistry;
let store: MemoryStore;
beforeAll(async () => {
  database = await freshDatabase('pglite');
  llm = await startFakeLlm();
  store = new MemoryStore({ db: database.db, clock: { now: () => new Date('2026-12-05T10:00:00Z') } });
  const memory = new Memory({
    store,
    embeddings: new EmbeddingsClient({ baseUrl: llm.baseURL, apiKey: '', model: 'fake-embed', timeoutMs: 5_000 }),
    recall: { minScore: 0.35, maxGap: 0.25, maxNotes: 6, maxTokens: 600, minBackground: 0.2 },
    zone: 'UTC',
    operatorName: (actor) => (actor.id === '42' ? 'maya' : undefined),
    logger: createLogger({ level: 'silent', pretty: false }),
  });
  registry = new ToolRegistry();
  for (const tool of memoryTools(memory)) registry.register(tool);
});
afterAll(async () => {
  await llm.close();
  await database.dispose();
});

describe('memory tools', () => {
  it('remember runs without a card, and stores the note with its source and embedding for the person', async () => {
    const args = { text: 'My exam is on 14 January', subject: 'exam date', source: 'stated' };
    expect((await registry.classify('memory_store', args, as('42'))).kind).toBe('run');
    const result = await registry.execute('memory_store', args, as('42'));
    expect(result).toMatchObject({ ok: true, output: expect.stringMatching(/^Remembered \(mem_[0-9a-f]+\)/) });
    const found = await store.candidates({
      owners: ['person:maya'],
      query: 'exam',
      embedding: { model: 'fake-embed', vector: fakeEmbedding('exam') },
    });
    expect(found.map((n) => [n.text, n.source, n.similarity! > 0])).toEqual([
      ['My exam is on 14 January', 'stated', true],
    ]);
  });

  it('a weaker source is kept beside what the person stated, and the model is told so', async () => {
    const args = { text: 'The exam is on 20 January', subject: 'Exam date', source: 'tool' };
    const result = await registry.execute('memory_store', args, as('42'));
    expect(result).toMatchObject({ ok: true, output: expect.stringContaining('the person said otherwise') });
  });

  it('the chat scope stores the chat’s shared note; someone without a turn cannot remember', async () => {
    await registry.execute('memory_store', { text: 'Standup is at 9', scope: 'chat' }, as('77'));
    expect((await store.recent(['chat:telegram:77'], 5)).map((n) => n.text)).toEqual(['Standup is at 9']);
    expect(
      await registry.classify('memory_store', { text: 'x' }, { workspace: '/nonexistent', env: {} }),
    ).toMatchObject({
      kind: 'refuse',
    });
  });

  it('forget asks a person first, refuses another’s note before any card, and stays forgotten', async () => {
    const [note] = await store.recent(['person:maya'], 1);
    expect(await registry.classify('memory_forget', { id: note!.id }, as('77'))).toEqual({
      kind: 'refuse',
      reason: `there is no note ${note!.id} in your memory or this chat's`,
    });
    expect(await registry.classify('memory_forget', { id: note!.id }, as('42'))).toMatchObject({ kind: 'ask' });
    expect(await registry.execute('memory_forget', { id: note!.id }, as('42'))).toMatchObject({ ok: true });
    const again = await registry.execute('memory_store', { text: note!.text, source: 'inferred' }, as('42'));
    expect(again).toMatchObject({ ok: true, output: expect.stringContaining('asked to forget') });
    expect((await store.recent(['person:maya'], 5)).map((n) => n.id)).not.toContain(note!.id);
  });

  it('memory_search finds the person’s notes with their ids, fenced, and nothing of another person', async () => {
    await registry.execute('memory_store', { text: 'My dentist is Dr Karim', source: 'stated' }, as('42'));
    const found = await registry.execute('memory_search', { query: 'who is my dentist?' }, as('42'));
    expect(found).toMatchObject({
      ok: true,
      output: expect.stringMatching(/«outside:[0-9a-f]+».*\[mem_[0-9a-f]+\] My dentist is Dr Karim/s),
    });
    expect(await registry.execute('memory_search', { query: 'who is my dentist?' }, as('77'))).toMatchObject({
      output: expect.stringContaining('Nothing remembered matches.'),
    });
  });

  it('memory_forget by query forgets nothing and lists the matches; by ids the card lists each note, and only those go', async () => {
    const a = await registry.execute('memory_store', { text: 'My gym is Fit Kuwait', source: 'stated' }, as('42'));
    const b = await registry.execute('memory_store', { text: 'My gym day is Monday', source: 'stated' }, as('42'));
    const ids = [a, b].map((r) => /\((mem_[0-9a-f]+)\)/.exec(r.ok ? r.output : '')![1]!);
    const byQuery = await registry.classify('memory_forget', { query: 'my gym' }, as('42'));
    expect(byQuery).toMatchObject({
      kind: 'refuse',
      reason: expect.stringMatching(/^nothing was forgotten yet\. These notes match: /),
    });
    expect(byQuery.kind === 'refuse' && byQuery.reason).toContain(`[${ids[0]}] My gym is Fit Kuwait`);
    const asked = await registry.classify('memory_forget', { id: ids }, as('42'));
    expect(asked).toMatchObject({ kind: 'ask', args: { id: ids } });
    expect(asked.kind === 'ask' && asked.reason).toContain(
      `forgets [${ids[0]}] My gym is Fit Kuwait; [${ids[1]}] My gym day is Monday`,
    );
    expect(await registry.classify('memory_forget', { id: ids }, as('77'))).toMatchObject({ kind: 'refuse' });
    expect(await registry.execute('memory_forget', { id: ids }, as('42'))).toMatchObject({
      ok: true,
      output: `Forgot ${ids.join(', ')}.`,
    });
    expect((await store.recent(['person:maya'], 20)).map((n) => n.id)).not.toContain(ids[1]);
    expect(await registry.classify('memory_forget', {}, as('42'))).toMatchObject({ kind: 'refuse' });
  });

  it('memory_store takes when a fact became true: an older one written later is kept as history', async () => {
    const now = { text: 'I work at Zain', subject: 'employer', source: 'stated', valid_from: '2025-09-01' };
    const before = { text: 'I worked at KOC', subject: 'employer', source: 'stated', valid_from: '2019-02-01' };
    const current = await registry.execute('memory_store', now, as('42'));
    const id = /\((mem_[0-9a-f]+)\)/.exec(current.ok ? current.output : '')![1]!;
    expect(await registry.execute('memory_store', before, as('42'))).toMatchObject({
      ok: true,
      output: expect.stringMatching(new RegExp(`^Kept as mem_[0-9a-f]+, as history: ${id} is true since later`)),
    });
    const texts = (await store.recent(['person:maya'], 50)).map((n) => n.text);
    expect(texts).toContain('I work at Zain');
    expect(texts).not.toContain('I worked at KOC');
    expect(await registry.classify('memory_store', { ...now, valid_from: 'last year' }, as('42'))).toMatchObject({
      kind: 'invalid',
    });
  });
});
