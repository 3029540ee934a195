// A turn's cost as one conversation grows: CPU-ms and SQL statements per turn at turns 1, 100 and 400 of
// one chat (Kazma's core path: inbox, chat queue, agent graph with its checkpoint and context window,
// reply), on embedded PGlite and on PostgreSQL, and the ratio turn-400 / turn-1. Each figure is the median
// of the nine turns ending there (turn 1: turns 1–9), measured in a child process per database so the
// fake model's CPU is not counted; another chat warms the process up first. Beside each of the long
// chat's turns runs one turn of a short chat (a new chat every nine turns), so each mark also has a
// reference measured in the same minutes: a shared machine drifts over a run, and the JIT is still
// warming up during the first turns, and both move a plain turn-400 / turn-1 ratio. The steadier figure
// is each long-chat turn divided by the new chat's turn run right after it, the median of those nine
// ratios: what a turn of this chat costs more than a new chat's, now. (On PostgreSQL the statement-counting
// proxy runs in the measured process: its CPU is in both kinds of turn, per statement.)
//
//   node --import tsx bench/long-thread.ts [--turns 400] [--max-tokens 32000] [--chars 200] [--database pglite|postgres]
//
// --chars is the length of each message (the reply echoes it). tests/bench/ runs it with 100 turns to see
// that it still does. Needs Redis like `kazma start` and, for the PostgreSQL run, the test server
// (KAZMA_TEST_PG_URL).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Actor, ChatRef } from '../src/core/surface/index.ts';
import { startFakeLlm } from '../tests/fakes/llm-server.ts';
import { startAssembled } from '../tests/helpers/assembled.ts';
import type { Backend } from '../tests/helpers/databases.ts';
import { AwaitedSurface, countedDatabase } from './lib/turn-cost.ts';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(HERE, '../..');
const MARKS = [1, 100, 400];
const SPAN = 9;
/** The turns summed for the figure that includes whatever happens now and then (a trim of the window). */
const WHOLE = 50;

interface TurnFigure {
  turn: number;
  cpuMs: number;
  statements: number;
  /** The median CPU-ms of the short chats' turns run beside the nine. */
  referenceCpuMs: number;
  /** The median over the nine of each turn's CPU ÷ the short chat's turn run right after it. */
  besideRatio: number;
  /** Over the WHOLE turns ending at the mark (every turn counted, not the median): CPU ÷ the short chats', and statements a turn. */
  whole?: { besideRatio: number; statements: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Child: drives `turns` turns of one chat and returns the figures at the marks. */
async function measure(
  backend: Backend,
  llmUrl: string,
  turns: number,
  maxTokens: number,
  chars: number,
): Promise<TurnFigure[]> {
  const { database, counter } = await countedDatabase(backend);
  const shortChats = Math.ceil(turns / SPAN);
  const users = [
    'telegram:1000',
    'telegram:2000',
    ...Array.from({ length: shortChats }, (_, i) => `telegram:${3000 + i}`),
  ];
  const k = await startAssembled(
    {
      model: { name: 'fake-model', base_url: llmUrl, max_retries: 0 },
      access: { users },
      agent: { context: { max_tokens: maxTokens } },
    },
    { database },
  );
  const telegram = new AwaitedSurface('telegram');
  k.kazma.core.attachSurface(telegram);
  const say = async (chat: ChatRef, i: number) => {
    const actor: Actor = { platform: 'telegram', id: chat.slice('telegram:'.length) };
    const replied = telegram.nextSend();
    const text = `message ${i} `.padEnd(chars, 'lorem ipsum dolor sit amet ');
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat,
      actor,
      text,
    });
    await replied;
    // The turn's last statement (inbox row ended, leases let go) runs after the reply: it is this turn's,
    // not the next one's. (Only the chat queues: core.idle() also polls the outbox, a statement of its own.)
    await k.kazma.core.queues.idle();
  };
  const cpuOf = async (chat: ChatRef, i: number) => {
    const started = process.cpuUsage();
    await say(chat, i);
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000;
  };
  try {
    for (let i = 0; i < 100; i++) await say('telegram:2000', i); // warm-up on another chat
    const perTurn: Array<{ cpuMs: number; statements: number; referenceCpuMs: number }> = [];
    for (let turn = 1; turn <= turns; turn++) {
      const reference = () => cpuOf(`telegram:${3000 + Math.floor((turn - 1) / SPAN)}` as ChatRef, turn);
      // Which of the pair runs first alternates, so neither always pays for what the other left behind.
      const before = turn % 2 === 0 ? await reference() : undefined;
      const statements = counter.count;
      const cpuMs = await cpuOf('telegram:1000', turn);
      const counted = counter.count - statements;
      const referenceCpuMs = before ?? (await reference());
      perTurn.push({ cpuMs, statements: counted, referenceCpuMs });
    }
    return MARKS.filter((m) => m <= turns).map((mark) => {
      const span = mark === 1 ? perTurn.slice(0, SPAN) : perTurn.slice(mark - SPAN, mark);
      const of = (pick: (f: (typeof span)[number]) => number) => median(span.map(pick));
      const all = mark >= WHOLE ? perTurn.slice(mark - WHOLE, mark) : undefined;
      const sum = (pick: (f: (typeof span)[number]) => number) => all!.reduce((total, f) => total + pick(f), 0);
      return {
        turn: mark,
        cpuMs: of((f) => f.cpuMs),
        statements: of((f) => f.statements),
        referenceCpuMs: of((f) => f.referenceCpuMs),
        besideRatio: of((f) => f.cpuMs / f.referenceCpuMs),
        ...(all && {
          whole: {
            besideRatio: sum((f) => f.cpuMs) / sum((f) => f.referenceCpuMs),
            statements: sum((f) => f.statements) / all.length,
          },
        }),
      };
    });
  } finally {
    await k.close();
    await database.dispose();
  }
}

if (process.argv[2] === '--measure') {
  const [backend, llmUrl, turns, maxTokens, chars] = process.argv.slice(3);
  console.log(
    JSON.stringify(await measure(backend as Backend, llmUrl!, Number(turns), Number(maxTokens), Number(chars))),
  );
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '400' },
    'max-tokens': { type: 'string', default: '32000' },
    chars: { type: 'string', default: '200' },
    database: { type: 'string' },
  },
});
const backends: Backend[] = values.database ? [values.database as Backend] : ['pglite', 'postgres'];
const llm = await startFakeLlm();
console.log(
  `one chat, ${values.turns} turns, messages of ${values.chars} characters, agent.context.max_tokens ${values['max-tokens']}`,
);
for (const backend of backends) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', HERE, '--measure', backend, llm.baseURL, values.turns, values['max-tokens'], values.chars],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`the ${backend} measurement exited with ${code}`);
  const figures = JSON.parse(out.trim().split('\n').at(-1)!) as TurnFigure[];
  for (const f of figures)
    console.log(
      `${backend.padEnd(8)} turn ${String(f.turn).padStart(3)}: ${f.cpuMs.toFixed(1).padStart(5)} CPU-ms, ${f.statements} statements (a new chat's turns beside it: ${f.referenceCpuMs.toFixed(1)} CPU-ms; each turn ÷ the new chat's beside it: ${f.besideRatio.toFixed(2)})`,
    );
  const first = figures[0]!;
  const last = figures.at(-1)!;
  const beside = (f: TurnFigure) => f.cpuMs / f.referenceCpuMs;
  if (last.whole)
    console.log(
      `${backend.padEnd(8)} turns ${last.turn - WHOLE + 1}–${last.turn}, every turn counted (a trim of the window too): CPU ÷ the new chats' beside them ${last.whole.besideRatio.toFixed(2)}, ${last.whole.statements.toFixed(2)} statements a turn`,
    );
  console.log(
    `${backend.padEnd(8)} turn ${last.turn} / turn 1: ${(last.cpuMs / first.cpuMs).toFixed(2)} (CPU), ${(beside(last) / beside(first)).toFixed(2)} (CPU, each against a new chat's turns beside it), ${(last.statements / first.statements).toFixed(2)} (statements); turn ${last.turn} ÷ a new chat's turn beside it: ${last.besideRatio.toFixed(2)}`,
  );
}
await llm.close();
