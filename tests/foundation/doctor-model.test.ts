// `kazma doctor` checks the model with one request that costs no tokens: the endpoint answers, the
// key is accepted, the model exists — and names the URL when not. With no model it says what to set,
// the environment first.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { runKazma, writeConfig } from '../helpers/kazma-process.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

// One directory (and so one embedded database, created once) for every run: each check is about the model.
const shared = mkdtempSync(join(tmpdir(), 'kazma-doctor-'));

async function doctor(model: string, env: Record<string, string | undefined> = {}) {
  const { dir, path } = writeConfig(`data_dir: ./data\nmodel: ${model}\n`, shared);
  const result = await runKazma(['doctor', '--config', path], {
    cwd: dir,
    env: { KAZMA_MODEL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, ...env },
  });
  return (
    result.stdout.split('\n').find((line) => / model: /.test(line)) ??
    `(no model line)\n${result.stdout}\n${result.stderr}`
  );
}

describe('kazma doctor: the model', () => {
  it('a model the endpoint lists: ✓, naming the endpoint and where the key came from', async () => {
    const line = await doctor('{ name: fake-model, base_url: "${OPENAI_BASE_URL}", api_key: "${OPENAI_API_KEY}" }', {
      OPENAI_BASE_URL: llm.baseURL,
      OPENAI_API_KEY: 'sk-test-123456',
    });
    expect(line).toBe(
      `✓ model: openai:fake-model answers at ${llm.baseURL}, key from OPENAI_API_KEY (model.api_key) accepted`,
    );
  }, 60_000);

  it('a model the endpoint does not list: ✗, naming the key to fix and what it lists', async () => {
    const line = await doctor(`{ name: gpt-nope, base_url: "${llm.baseURL}" }`);
    expect(line).toBe(
      `✗ model: ${llm.baseURL} answers, but does not list model "gpt-nope" (model.name); it lists: fake-model`,
    );
  }, 60_000);

  it('an endpoint where nothing listens: ✗, naming the URL, without "try again later"', async () => {
    const closed = await startFakeLlm();
    await closed.close();
    const line = await doctor(`{ name: fake-model, base_url: "${closed.baseURL}" }`);
    expect(line).toBe(
      `✗ model: nothing answers at ${closed.baseURL} (connection refused): is the model server running, and is model.base_url right?`,
    );
  }, 60_000);

  it('no model: says what to set, the environment first', async () => {
    const line = await doctor('{ name: "" }');
    expect(line).toMatch(
      /^! model: no model is configured, .*Set KAZMA_MODEL \(e\.g\. gpt-4o-mini\) and OPENAI_API_KEY in the environment/,
    );
  }, 60_000);
});

describe('kazma doctor: memory', () => {
  async function memoryLine(config: string) {
    const { dir, path } = writeConfig(`data_dir: ./data\n${config}`, shared);
    const result = await runKazma(['doctor', '--config', path], {
      cwd: dir,
      env: { KAZMA_MODEL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined },
    });
    return result.stdout.split('\n').find((line) => / memory: /.test(line)) ?? `(no memory line)\n${result.stdout}`;
  }

  it('✓ when the model’s endpoint answers embeddings; ! full-text only when there is no endpoint', async () => {
    expect(await memoryLine(`model: { name: fake-model, base_url: "${llm.baseURL}" }\n`)).toMatch(
      /^✓ memory: embeddings from text-embedding-3-small at http:\/\/127\.0\.0\.1:\d+\/v1 \(256 dimensions\)$/,
    );
    expect(await memoryLine('model: { provider: anthropic, name: claude }\n')).toMatch(
      /^! memory: memory recall uses full-text only: no embeddings endpoint .*memory\.embeddings\.base_url/,
    );
  });
});
