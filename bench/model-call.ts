// What one model call costs this process, layer by layer, with Kazma's real request: the enabled tools of a
// Kazma on its defaults and a conversation of `--messages` messages, against the fake OpenAI-compatible
// server in a process of its own (its CPU is not counted). Side by side, in rotating rounds:
//   langchain — Kazma's path: ChatOpenAI (createChatModel) bound to the tools, invoke();
//   sdk       — the openai SDK's chat.completions.create() with the same body, through Kazma's model fetch;
//   http      — the bare request through Kazma's model fetch (undici), its answer parsed.
// Prints CPU-ms per call: the median of the rounds, with the least and the most.
//
//   node --import tsx bench/model-call.ts [--calls 300] [--rounds 6] [--messages 40]
//
// tests/bench/ runs it with few calls to see that it still does; the figures are not checked.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import OpenAI from 'openai';
import { createChatModel } from '../src/core/agent/model/model-factory.ts';
import { modelFetch } from '../src/core/agent/model/model-fetch.ts';
import { startAssembled } from '../tests/helpers/assembled.ts';
import { freshDatabase } from '../tests/helpers/databases.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '6' },
    messages: { type: 'string', default: '40' },
  },
});
const calls = Number(values.calls);
const rounds = Number(values.rounds);
const messages = Number(values.messages);
for (const [key, value] of Object.entries({ calls, rounds, messages }))
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${key} must be a positive integer`);

const ROOT = join(fileURLToPath(import.meta.url), '../..');
const fake = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'tests/fakes/llm-server.ts')], {
  cwd: ROOT,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [line] = (await once(fake.stdout!, 'data')) as [Buffer];
const port = /LISTENING (\d+)/.exec(line.toString())?.[1];
if (!port) throw new Error(`the fake model server did not start: ${line.toString()}`);
const baseURL = `http://127.0.0.1:${port}/v1`;

try {
  // Kazma's tools as its model sees them, from a Kazma on its defaults.
  const database = await freshDatabase('pglite');
  const kazma = await startAssembled(
    { model: { name: 'fake-model', base_url: baseURL, max_retries: 0 } },
    { database },
  );
  const specs = kazma.kazma.core.tools.toolSpecs();
  await kazma.close();
  await database.dispose();

  const system = 'You are Kazma, a self-hosted assistant. '.repeat(6);
  const history: BaseMessage[] = [new SystemMessage(system)];
  const body: Array<{ role: 'system' | 'user' | 'assistant'; content: string }> = [{ role: 'system', content: system }];
  for (let i = 0; i < messages; i++) {
    const text = i % 2 === 0 ? `question ${i}: what is on today?` : `echo: question ${i - 1}`;
    history.push(i % 2 === 0 ? new HumanMessage(text) : new AIMessage(text));
    body.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: text });
  }
  const tools = specs; // already in the OpenAI function format
  const request = { model: 'fake-model', messages: body, tools };

  const chat = createChatModel(
    { provider: 'openai', name: 'fake-model', base_url: baseURL, api_key: '' },
    { timeoutMs: 60_000 },
  );
  const bound = chat.bindTools!(specs);
  const client = new OpenAI({ apiKey: 'not-needed', baseURL, maxRetries: 0, fetch: modelFetch });
  const kinds: Record<string, () => Promise<unknown>> = {
    langchain: () => bound.invoke(history),
    sdk: () => client.chat.completions.create(request),
    http: async () => {
      const response = await modelFetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer not-needed' },
        body: JSON.stringify(request),
      });
      return response.json();
    },
  };
  const names = Object.keys(kinds);
  for (const name of names) for (let i = 0; i < Math.min(calls, 100); i++) await kinds[name]!(); // warm-up
  const perRound: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      const started = process.cpuUsage();
      for (let i = 0; i < calls; i++) await kinds[name]!();
      const used = process.cpuUsage(started);
      perRound[name]!.push((used.user + used.system) / 1000 / calls);
    }
  }
  console.log(
    `model call: ${calls} calls of each kind in ${rounds} rounds, ${specs.length} tools (${JSON.stringify(tools).length} bytes), ${messages + 1} messages`,
  );
  console.log(`${'kind'.padEnd(12)}${'CPU ms per call: median [least–most]'}`);
  for (const name of names) {
    const sorted = [...perRound[name]!].sort((a, b) => a - b);
    const median =
      sorted.length % 2 === 1
        ? sorted[sorted.length >> 1]!
        : (sorted[(sorted.length >> 1) - 1]! + sorted[sorted.length >> 1]!) / 2;
    console.log(`${name.padEnd(12)}${median.toFixed(3)} [${sorted[0]!.toFixed(3)}–${sorted.at(-1)!.toFixed(3)}]`);
  }
} finally {
  fake.kill('SIGTERM');
}
process.exit(0);
