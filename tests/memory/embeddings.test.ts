import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctorCheck } from '../../src/core/doctor.ts';
import { configSchema } from '../../src/core/config/schema.ts';
import { embeddingsSettings, EmbeddingsClient, memoryDoctorCheck } from '../../src/core/memory/index.ts';
import { fakeEmbedding, startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';

/** A port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const cosine = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);

describe('the fake server’s embeddings', () => {
  it('are deterministic, similar for texts that share words and near 0 for texts that share none', () => {
    expect(fakeEmbedding('My exam is on 14 January')).toEqual(fakeEmbedding('my EXAM is on 14 january!'));
    const exam = fakeEmbedding('my exam date');
    expect(cosine(exam, fakeEmbedding('when is the exam'))).toBeGreaterThan(0.2);
    expect(Math.abs(cosine(exam, fakeEmbedding('weather tomorrow in Kuwait')))).toBeLessThan(0.2);
  });
});

describe('embeddings from the configured OpenAI-compatible endpoint', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
  });

  it('takes memory.embeddings.base_url and api_key, else the model’s endpoint when it speaks OpenAI', () => {
    const config = configSchema.parse({ model: { base_url: 'http://m/v1', api_key: 'k1' } });
    expect(embeddingsSettings(config)).toMatchObject({
      baseUrl: 'http://m/v1',
      apiKey: 'k1',
      model: 'text-embedding-3-small',
    });
    const own = configSchema.parse({
      model: { provider: 'anthropic', api_key: 'ak' },
      memory: { embeddings: { base_url: 'http://e/v1/', api_key: 'k2', name: 'nomic' } },
    });
    expect(embeddingsSettings(own)).toMatchObject({ baseUrl: 'http://e/v1', apiKey: 'k2', model: 'nomic' });
    // Anthropic has no embeddings endpoint: none unless one is configured.
    expect(embeddingsSettings(configSchema.parse({ model: { provider: 'anthropic' } }))).toBeUndefined();
  });

  it('posts <base_url>/embeddings and returns one vector per text, in order', async () => {
    const client = new EmbeddingsClient({ baseUrl: llm.baseURL, apiKey: 'x', model: 'fake-embed', timeoutMs: 5_000 });
    const [a, b] = await client.embed(['my exam date', 'weather']);
    expect(a).toEqual({ model: 'fake-embed', vector: fakeEmbedding('my exam date') });
    expect(b!.vector).toEqual(fakeEmbedding('weather'));
  });

  it('kazma doctor: ok when the endpoint answers, a warning (full-text only) when it does not', async () => {
    const settings = { baseUrl: llm.baseURL, apiKey: '', model: 'fake-embed', timeoutMs: 5_000 };
    const ok = await runDoctorCheck(memoryDoctorCheck(settings));
    expect(ok).toMatchObject({ name: 'memory', status: 'ok' });
    expect(ok.detail).toContain('fake-embed');

    const down = { ...settings, baseUrl: `http://127.0.0.1:${await closedPort()}/v1` };
    const warn = await runDoctorCheck(memoryDoctorCheck(down));
    expect(warn).toMatchObject({ name: 'memory', status: 'warn' });
    expect(warn.detail).toMatch(/full-text only/);
    expect(warn.fix).toMatch(/memory\.embeddings\.base_url/);

    const none = await runDoctorCheck(memoryDoctorCheck(undefined));
    expect(none).toMatchObject({ status: 'warn' });
    expect(none.detail).toMatch(/full-text only/);
  });
});
