// One runner per thread across processes: the thread lease is an owned, expiring row, and two Kazma
// processes sharing one PostgreSQL never drive one thread at once — the second turn waits and sees the
// first turn's words, instead of both starting from the same checkpoint.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ThreadLeases } from '../../src/core/turns/thread-lease.ts';
import { ThreadStore } from '../../src/core/turns/threads.ts';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { BACKENDS, freshDatabase, type FreshDatabase } from '../helpers/databases.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

// Solo (PGlite: one process per data dir) the same rules hold in memory, without a statement.
const KINDS = [...BACKENDS.map((backend) => ({ backend, solo: false })), { backend: 'pglite' as const, solo: true }];

for (const { backend, solo } of KINDS) {
  describe(`thread leases [${backend}${solo ? ', solo' : ''}]`, () => {
    let database: FreshDatabase;
    beforeAll(async () => {
      database = await freshDatabase(backend);
    });
    afterAll(async () => {
      await database.dispose();
    });

    it('one holder at a time; the holder renews and releases; a lease left by a dead holder is taken once it expires', async () => {
      const leases = new ThreadLeases({ db: database.db, owner: 'p1', ttlMs: 1_000, solo });
      expect(await leases.acquire('t1', 'a')).toBe(true);
      expect(await leases.acquire('t1', 'b')).toBe(false);
      expect(await leases.acquire('t1', 'a')).toBe(true); // renewal
      await leases.release('t1', 'b'); // not b's: nothing happens
      expect(await leases.acquire('t1', 'b')).toBe(false);
      await leases.release('t1', 'a');
      expect(await leases.acquire('t1', 'b')).toBe(true);
      // b stops renewing (its process died): after the ttl another holder may take the thread.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(await leases.acquire('t1', 'c')).toBe(true);
      expect(await leases.acquire('t1', 'b')).toBe(false);
    });

    it('a renewal extends the holder’s lease, and never takes back one that was let go or taken', async () => {
      const leases = new ThreadLeases({ db: database.db, owner: 'p3', ttlMs: 1_000, solo });
      expect(await leases.acquire('t3', 'a')).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await leases.renew('t3', 'a')).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await leases.acquire('t3', 'b')).toBe(false); // renewed: still a's after its first ttl
      expect(await leases.renew('t3', 'b')).toBe(false);
      await leases.release('t3', 'a');
      // A renewal that lands after the release (it was under way) must not bring the lease back.
      expect(await leases.renew('t3', 'a')).toBe(false);
      expect(await leases.acquire('t3', 'b')).toBe(true);
      expect(await leases.renew('t3', 'a')).toBe(false);
    });

    it('run() excludes runs of the same process too, and hands over in turn', async () => {
      const leases = new ThreadLeases({ db: database.db, owner: 'p2', ttlMs: 5_000, solo });
      const log: string[] = [];
      const work = (name: string) => async () => {
        log.push(`${name} in`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        log.push(`${name} out`);
      };
      await Promise.all([leases.run('t2', work('a')), leases.run('t2', work('b'))]);
      expect([log.slice(0, 2), log.slice(2)].map((pair) => pair[0]!.split(' ')[0] === pair[1]!.split(' ')[0])).toEqual([
        true,
        true,
      ]);
    });

    it('runOnChat() takes the lease of the chat’s current thread, read in the same statement, and waits while another holds it', async () => {
      const leases = new ThreadLeases({ db: database.db, owner: 'p4', ttlMs: 5_000, solo });
      const threads = new ThreadStore(database.db, { solo });
      const chat = `telegram:${randomUUID()}` as ChatRef;
      await threads.next(chat);
      await threads.next(chat); // generation 2
      const current = () => threads.current(chat);
      expect(await leases.runOnChat(chat, current, async (threadId) => threadId)).toBe(`${chat}#2`);
      expect(await leases.acquire(`${chat}#2`, 'another')).toBe(true);
      const log: string[] = [];
      const waiting = leases.runOnChat(chat, current, async (threadId) => void log.push(threadId));
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(log).toEqual([]);
      await leases.release(`${chat}#2`, 'another');
      await waiting;
      expect(log).toEqual([`${chat}#2`]);
      // Let go after the run: another holder takes it at once.
      expect(await leases.acquire(`${chat}#2`, 'another')).toBe(true);
    });
  });
}

describe('solo thread leases', () => {
  let database: FreshDatabase;
  let other: FreshDatabase;
  beforeAll(async () => {
    [database, other] = await Promise.all([freshDatabase('pglite'), freshDatabase('pglite')]);
  });
  afterAll(async () => {
    await Promise.all([database.dispose(), other.dispose()]);
  });

  it('live in the one ThreadLeases of the process: its holders exclude each other, a new one (a start) holds none, and none is a row', async () => {
    const leases = new ThreadLeases({ db: database.db, owner: 'p1', solo: true });
    expect(await leases.acquire('t1', 'p1/x')).toBe(true);
    expect(await leases.acquire('t1', 'p1/y')).toBe(false);
    expect(await new ThreadLeases({ db: other.db, owner: 'p3', solo: true }).acquire('t1', 'p3/z')).toBe(true);
    expect(await database.pglite!.query('select count(*)::int as n from thread_leases')).toMatchObject({
      rows: [{ n: 0 }],
    });
    // A start after a crash builds a new ThreadLeases: nothing the old one held is held.
    expect(await new ThreadLeases({ db: database.db, owner: 'p2', solo: true }).acquire('t1', 'p2/y')).toBe(true);
  });
});

describe('two processes on one PostgreSQL', () => {
  let llm: FakeLlm;
  let database: FreshDatabase;
  const running: Assembled[] = [];
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });
  afterEach(async () => {
    for (const k of running.splice(0)) await k.close();
    await database?.dispose();
  });

  it('messages to one chat taken in by both at once run one after the other: the second turn sees the first', async () => {
    database = await freshDatabase('postgres');
    const config = {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
      access: { operators: [{ name: 'maya', telegram: '42' }] },
    };
    const surface = new RecordingSurface('telegram');
    for (let i = 0; i < 2; i++) {
      const k = await startAssembled(config, { database });
      k.kazma.core.attachSurface(surface);
      running.push(k);
    }
    const chat: ChatRef = 'telegram:1';
    llm.hangNext(2, 400); // each model call takes a while, so unleased turns would overlap
    const say = (k: Assembled, text: string) =>
      k.kazma.core.pipeline.handle({
        kind: 'message',
        eventId: randomUUID(),
        platform: 'telegram',
        chat,
        actor: { platform: 'telegram', id: '42' },
        text,
      });
    await Promise.all([say(running[0]!, 'first from A'), say(running[1]!, 'second from B')]);
    for (const k of running) await k.settled();

    expect(llm.requests).toHaveLength(2);
    const [early, late] = llm.requests.map((r) =>
      (r.messages ?? []).filter((m) => m.role !== 'system').map((m) => `${m.role}: ${String(m.content)}`),
    );
    // The later call carries the earlier turn whole: its question and its answer.
    expect(late!.slice(0, 2)).toEqual([early![0], `assistant: echo: ${early![0]!.replace('user: ', '')}`]);
    expect(surface.texts().sort()).toEqual(['echo: first from A', 'echo: second from B']);
  });
});
