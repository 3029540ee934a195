// A turn's cost as one conversation grows: CPU-ms and SQL statements per turn at turns 1, 100 and 400 of
// one chat (Kazma's core path: inbox, chat queue, agent graph with its checkpoint and context window,
// reply), on embedded PGlite and on PostgreSQL, and the ratio turn-400 / turn-1. Each figure is the median
// of the nine turns ending there (turn 1: turns 1–9), measured in a child process per database so the
// fake model's CPU is not counted; another chat warms the process up first.
//
//   node --import tsx bench/long-thread.ts [--turns 400] [--max-tokens 32000] [--chars 200] [--database pglite|postgres]
//
// --chars is the length of each message (the reply echoes it). Not part of the test suite; needs Redis
// like `kazma start` and, for the PostgreSQL run, the test server (KAZMA_TEST_PG_URL).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Actor, ChatRef } from '../src/core/chat/index.ts';
import { startFakeLlm } from '../tests/fakes/llm-server.ts';
import { startAssembled } from '../tests/helpers/assembled.ts';
import type { Backend } from '../tests/helpers/databases.ts';
import { AwaitedSurface, countedDatabase } from './lib/turn-cost.ts';
import { embeddedWasmTier } from './lib/wasm-tier.ts';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(HERE, '../..');
const MARKS = [1, 100, 400];
const SPAN = 9;

interface TurnFigure { turn: number; cpuMs: number; statements: number }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Child: drives `turns` turns of one chat and returns the figures at the marks. */
async function measure(backend: Backend, llmUrl: string, turns: number, maxTokens: number, chars: number): Promise<TurnFigure[]> {
  const { database, counter } = await countedDatabase(backend);
  const users = ['telegram:1000', 'telegram:2000'];
  const k = await startAssembled({ model: { name: 'fake-model', base_url: llmUrl, max_retries: 0 }, access: { users }, agent: { context: { max_tokens: maxTokens } } }, { database });
  const telegram = new AwaitedSurface('telegram');
  k.kazma.core.attachSurface(telegram);
  const say = async (chat: ChatRef, i: number) => {
    const actor: Actor = { platform: 'telegram', id: chat.slice('telegram:'.length) };
    const replied = telegram.nextSend();
    const text = `message ${i} `.padEnd(chars, 'lorem ipsum dolor sit amet ');
    await k.kazma.core.pipeline.handle({ kind: 'message', eventId: randomUUID(), platform: 'telegram', chat, actor, text });
    await replied;
  };
  try {
    for (let i = 0; i < 30; i++) await say('telegram:2000', i); // warm-up on another chat
    const perTurn: TurnFigure[] = [];
    for (let turn = 1; turn <= turns; turn++) {
      const statements = counter.count;
      const started = process.cpuUsage();
      await say('telegram:1000', turn);
      const used = process.cpuUsage(started);
      perTurn.push({ turn, cpuMs: (used.user + used.system) / 1000, statements: counter.count - statements });
    }
    return MARKS.filter((m) => m <= turns).map((mark) => {
      const span = mark === 1 ? perTurn.slice(0, SPAN) : perTurn.slice(mark - SPAN, mark);
      return { turn: mark, cpuMs: median(span.map((f) => f.cpuMs)), statements: median(span.map((f) => f.statements)) };
    });
  } finally {
    await k.close();
    await database.dispose();
  }
}

if (process.argv[2] === '--measure') {
  const [backend, llmUrl, turns, maxTokens, chars] = process.argv.slice(3);
  console.log(JSON.stringify(await measure(backend as Backend, llmUrl!, Number(turns), Number(maxTokens), Number(chars))));
  process.exit(0);
}

const { values } = parseArgs({
  options: { turns: { type: 'string', default: '400' }, 'max-tokens': { type: 'string', default: '32000' }, chars: { type: 'string', default: '200' }, database: { type: 'string' } },
});
const backends: Backend[] = values.database ? [values.database as Backend] : ['pglite', 'postgres'];
const llm = await startFakeLlm();
console.log(`one chat, ${values.turns} turns, messages of ${values.chars} characters, agent.context.max_tokens ${values['max-tokens']}`);
for (const backend of backends) {
  const child = spawn(process.execPath, [...embeddedWasmTier(backend), '--import', 'tsx', HERE, '--measure', backend, llm.baseURL, values.turns, values['max-tokens'], values.chars], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`the ${backend} measurement exited with ${code}`);
  const figures = JSON.parse(out.trim().split('\n').at(-1)!) as TurnFigure[];
  for (const f of figures) console.log(`${backend.padEnd(8)} turn ${String(f.turn).padStart(3)}: ${f.cpuMs.toFixed(1).padStart(5)} CPU-ms, ${f.statements} statements`);
  const first = figures[0]!;
  const last = figures.at(-1)!;
  console.log(`${backend.padEnd(8)} turn ${last.turn} / turn 1: ${(last.cpuMs / first.cpuMs).toFixed(2)} (CPU), ${(last.statements / first.statements).toFixed(2)} (statements)`);
}
await llm.close();
