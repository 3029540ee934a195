// The build users run is the build tested: `kazma chat` from dist/ on the embedded database loads
// pgvector (its files are found next to its own module, which a bundle would break), stores a note with
// its embedding in the HNSW index of its length, and recalls it in a new thread.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPglite } from '../../src/core/db/pglite-open.ts';
import { FAKE_EMBEDDING_DIMENSIONS } from '../fakes/llm-embeddings.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { contentText, type ChatRequestBody, type FakeStep } from '../fakes/llm-wire.ts';
import { seedPgliteDataDir } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess } from '../helpers/kazma-process.ts';

const FACT = 'My exam is on 14 January';

let dir: string;
let llm: FakeLlm;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kazma-compiled-memory-'));
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('memory in the compiled build on PGlite', () => {
  it('uses pgvector with an HNSW index, and recalls a stored note after /new', { timeout: 180_000 }, async () => {
    const data = join(dir, 'data');
    await seedPgliteDataDir(data);
    // "remember" makes the model call memory_store; everything else is answered "ok".
    llm.setDefault((body: ChatRequestBody): FakeStep => {
      const last = body.messages?.at(-1);
      if (last?.role === 'user' && contentText(last.content).startsWith('remember'))
        return { toolCalls: [{ name: 'memory_store', args: { text: FACT, source: 'stated' } }] };
      return { text: 'ok' };
    });
    const config = {
      data_dir: data,
      http: { port: 0 },
      model: { name: 'fake-model', base_url: llm.baseURL },
      memory: { embeddings: { name: 'fake-embed' } },
      access: { operators: [{ name: 'maya', console: 'maya' }] },
    };
    writeFileSync(join(dir, 'kazma.yaml'), JSON.stringify(config));
    const chat = new KazmaProcess(['chat', '--config', join(dir, 'kazma.yaml')], {
      cwd: dir,
      env: { KAZMA_VAULT_KEY: 'a vault key', KAZMA_SECRET: 'a signing key', DATABASE_URL: '', REDIS_URL: '' },
    });
    const replies = () => (chat.stdout.match(/^kazma> ok$/gm) ?? []).length;
    const say = async (line: string) => {
      const before = replies();
      chat.child.stdin!.write(`${line}\n`);
      await eventually(
        () => replies(),
        (n) => n > before,
        () => `a reply to "${line}"; stdout:\n${chat.stdout}\nstderr:\n${chat.stderr}`,
        { timeoutMs: 90_000, intervalMs: 50 },
      );
    };
    try {
      await say('remember my exam date');
      chat.child.stdin!.write('/new\n');
      const before = llm.requests.length;
      await say('When is my exam?');
      const system = llm.requests.slice(before).map((r) => r.messages?.find((m) => m.role === 'system'));
      expect(contentText(system[0]?.content)).toContain(`the person said: ${FACT}`);
    } finally {
      chat.kill('SIGKILL');
      await chat.exited;
    }
    const pglite = await startPglite({ dataDir: join(data, 'pglite') });
    try {
      const extension = await pglite.query(`select extname from pg_extension where extname = 'vector'`);
      expect(extension.rows).toHaveLength(1);
      const index = await pglite.query<{ indexdef: string }>(
        `select indexdef from pg_indexes where indexname = 'memories_embedding_hnsw_${FAKE_EMBEDDING_DIMENSIONS}'`,
      );
      expect(index.rows[0]?.indexdef).toContain('USING hnsw');
    } finally {
      await pglite.close();
    }
  });
});
