// CPU-ms and SQL statements per simple chat turn (fake model, no tools), Kazma's whole core path beside
// the floor: a bare one-node LangGraph graph on the same checkpointer and database, measured in the same
// process, side by side: every kind warmed up first, then rounds of one block each in rotating order.
// Beside those floors stands the floor as the performance issue wrote it: the one-node graph on
// LangGraph's own PostgresSaver, with LangGraph's defaults (durability `async`). Kazma's saver
// (batched-saver.ts) is cheaper than the stock one, and the floors above share it.
// (Measured one after the other, the floor ran first and still half-compiled by the JIT, and the machine
// drifted between the two: the ratio came out ~1.5× too kind to Kazma.) Runs in a process of its own
// (see turn-throughput.ts) so the fake model's CPU is not counted.
import { randomUUID } from 'node:crypto';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type pg from 'pg';
import { CHECKPOINTER_SCHEMA, createCheckpointer } from '../../src/core/agent/checkpoint/checkpointer.ts';
import type { Actor, ChatRef, Message, MessageRef } from '../../src/core/surface/index.ts';
import { migrateDatabase, openDatabase } from '../../src/core/db/index.ts';
import { startAssembled } from '../../tests/helpers/assembled.ts';
import { createPgDatabase, freshDatabase, type Backend, type FreshDatabase } from '../../tests/helpers/databases.ts';
import { STANDARD_STEPS } from '../../tests/helpers/pglite-template.ts';
import { RecordingSurface } from '../../tests/helpers/recording-surface.ts';
import { countPgliteStatements, startCountingProxy, type StatementCounter } from './statements.ts';
import { BlockProfiler, type CategoryCosts } from './turn-profile.ts';

export interface TurnCost {
  backend: Backend;
  turns: number;
  /** Rounds the turns were split into; each round runs a block of every kind, in rotating order. */
  rounds: number;
  /**
   * The floor: CPU-ms and statements per invoke of a one-node graph, per durability mode (`async` is
   * LangGraph's default; `exit` the least it can write, one checkpoint at the end).
   */
  floor: Record<Floor, { cpuMs: number; statements: number }>;
  kazma: { cpuMs: number; statements: number };
  /** Kazma / floor per round (blocks measured side by side), over the rounds: median, least, most. */
  ratio: Record<Floor, Spread>;
  /** With `profile`: self CPU per turn by category (package, Kazma directory, native step), per kind. */
  profile?: Record<Kind, CategoryCosts>;
}

type Durability = 'exit' | 'async' | 'sync';
/** A floor: the one-node graph on Kazma's saver at a durability, or on the stock PostgresSaver with LangGraph's defaults. */
export type Floor = Durability | 'stock';

export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** A fresh migrated database whose statements are counted (PostgreSQL through a counting proxy). */
export async function countedDatabase(
  backend: Backend,
): Promise<{ database: FreshDatabase; counter: StatementCounter }> {
  if (backend === 'pglite') {
    const database = await freshDatabase('pglite');
    return { database, counter: countPgliteStatements(database.pglite!) };
  }
  const created = await createPgDatabase();
  const proxy = await startCountingProxy({ host: '127.0.0.1', port: Number(new URL(created.url).port || 5432) });
  const database = await openDatabase({ url: proxy.through(created.url), poolSize: 20 });
  await migrateDatabase(database, STANDARD_STEPS);
  return {
    counter: proxy,
    database: {
      ...database,
      dispose: async () => {
        await database.close();
        await proxy.close();
        await created.drop();
      },
    },
  };
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** One kind of turn to measure: a turn by its running index, and what closes it. */
interface TurnKind {
  turn(i: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The floor: a one-node graph that answers every message, on `chats` threads in turn — on Kazma's saver
 * at `durability`, or (`stock`) on LangGraph's PostgresSaver over the same pool, invoked with defaults.
 */
async function floorKind(database: FreshDatabase, floor: Floor, chats: number): Promise<TurnKind> {
  const checkpointer = await createCheckpointer(database);
  const saver =
    floor === 'stock'
      ? new PostgresSaver(checkpointer.pool as pg.Pool, undefined, { schema: CHECKPOINTER_SCHEMA })
      : checkpointer.saver;
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('reply', (state) => ({ messages: [new AIMessage(`echo: ${String(state.messages.at(-1)!.content)}`)] }))
    .addEdge('__start__', 'reply')
    .compile({ checkpointer: saver });
  const run = `floor-${floor}-${randomUUID().slice(0, 8)}`;
  return {
    turn: async (i) => {
      const configurable = { thread_id: `${run}-${i % chats}` };
      await graph.invoke(
        { messages: [new HumanMessage(`m${i}`)] },
        floor === 'stock' ? { configurable } : { configurable, durability: floor },
      );
    },
    close: () => checkpointer.close(),
  };
}

/** A recording surface whose sends can be awaited. */
export class AwaitedSurface extends RecordingSurface {
  #waiters: Array<() => void> = [];
  override async send(chat: ChatRef, message: Message): Promise<MessageRef> {
    const ref = await super.send(chat, message);
    this.#waiters.shift()?.();
    return ref;
  }
  nextSend(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** Kazma's simple turn: a Telegram message through the pipeline (inbox, chat queue, agent, reply). */
async function kazmaKind(database: FreshDatabase, llmUrl: string, chats: number): Promise<TurnKind> {
  const users = Array.from({ length: chats }, (_, i) => `telegram:${1000 + i}`);
  const k = await startAssembled(
    { model: { name: 'fake-model', base_url: llmUrl, max_retries: 0 }, access: { users } },
    { database },
  );
  const telegram = new AwaitedSurface('telegram');
  k.kazma.core.attachSurface(telegram);
  return {
    turn: async (i) => {
      const chat = users[i % chats]! as ChatRef;
      const actor: Actor = { platform: 'telegram', id: chat.slice('telegram:'.length) };
      const replied = telegram.nextSend();
      await k.kazma.core.pipeline.handle({
        kind: 'message',
        eventId: randomUUID(),
        platform: 'telegram',
        chat,
        actor,
        text: `m${i}`,
      });
      await replied;
    },
    close: () => k.close(),
  };
}

const KINDS = ['exit', 'async', 'sync', 'stock', 'kazma'] as const;
type Kind = (typeof KINDS)[number];

/**
 * The three kinds on one database, side by side: after a warm-up of each, `rounds` rounds, each running a
 * block of `turns / rounds` turns of every kind in an order that rotates from round to round. A shared,
 * noisy machine drifts over a run; blocks this close together drift together, so each round's Kazma /
 * floor ratio is steadier than one taken from measurements minutes apart.
 */
async function measureOn(
  database: FreshDatabase,
  counter: StatementCounter,
  options: { llmUrl: string; turns: number; chats: number; rounds: number; profiler?: BlockProfiler },
) {
  const kinds: Record<Kind, TurnKind> = {
    exit: await floorKind(database, 'exit', options.chats),
    async: await floorKind(database, 'async', options.chats),
    sync: await floorKind(database, 'sync', options.chats),
    stock: await floorKind(database, 'stock', options.chats),
    kazma: await kazmaKind(database, options.llmUrl, options.chats),
  };
  const next: Record<Kind, number> = { exit: 0, async: 0, sync: 0, stock: 0, kazma: 0 };
  const total: Record<Kind, { cpuMs: number; statements: number; turns: number }> = {
    exit: { cpuMs: 0, statements: 0, turns: 0 },
    async: { cpuMs: 0, statements: 0, turns: 0 },
    sync: { cpuMs: 0, statements: 0, turns: 0 },
    stock: { cpuMs: 0, statements: 0, turns: 0 },
    kazma: { cpuMs: 0, statements: 0, turns: 0 },
  };
  const perRound: Array<Record<Kind, number>> = [];
  try {
    for (const kind of KINDS)
      for (let i = 0; i < Math.min(options.turns, 50); i++) await kinds[kind].turn(next[kind]++); // warm-up
    const block = Math.max(1, Math.round(options.turns / options.rounds));
    for (let round = 0; round < options.rounds; round++) {
      const cpu = {} as Record<Kind, number>;
      for (let k = 0; k < KINDS.length; k++) {
        const kind = KINDS[(round + k) % KINDS.length]!;
        const statements = counter.count;
        const started = process.cpuUsage();
        const run = async () => {
          for (let i = 0; i < block; i++) await kinds[kind].turn(next[kind]++);
        };
        await (options.profiler ? options.profiler.block(kind, block, run) : run());
        const used = cpuMs(started);
        cpu[kind] = used / block;
        total[kind].cpuMs += used;
        total[kind].statements += counter.count - statements;
        total[kind].turns += block;
      }
      perRound.push(cpu);
    }
  } finally {
    for (const kind of KINDS) await kinds[kind].close();
  }
  const ratios = (floor: Floor) => spread(perRound.map((r) => r.kazma / r[floor]));
  const per = (kind: Kind) => ({
    cpuMs: total[kind].cpuMs / total[kind].turns,
    statements: total[kind].statements / total[kind].turns,
  });
  return {
    floor: { exit: per('exit'), async: per('async'), sync: per('sync'), stock: per('stock') },
    kazma: per('kazma'),
    ratio: { exit: ratios('exit'), async: ratios('async'), sync: ratios('sync'), stock: ratios('stock') },
  };
}

/** Median, least and most of `values` (at least one). */
function spread(values: number[]): Spread {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
}

/**
 * Measures the floor and Kazma on `backend`, twice: CPU on a database reached directly, in `rounds`
 * rounds (counting statements through a proxy in this process would bill the proxy's CPU to the turn),
 * then statements on a fresh database whose statements are counted, in one round. With `profile`, a
 * third pass on the direct database runs the same rounds under the sampling profiler (which slows what
 * it samples, so its CPU figures are not the ones printed) and bills each kind's CPU to categories.
 */
export async function measureTurnCost(options: {
  backend: Backend;
  llmUrl: string;
  turns: number;
  chats: number;
  rounds: number;
  profile?: boolean;
}): Promise<TurnCost> {
  const direct = await freshDatabase(options.backend);
  let cpu: Awaited<ReturnType<typeof measureOn>>;
  let profile: TurnCost['profile'];
  try {
    cpu = await measureOn(direct, { count: 0 }, options);
    if (options.profile) {
      const profiler = await BlockProfiler.open();
      try {
        await measureOn(direct, { count: 0 }, { ...options, profiler });
        profile = profiler.perTurn() as Record<Kind, CategoryCosts>;
      } finally {
        profiler.close();
      }
    }
  } finally {
    await direct.dispose();
  }
  const { database, counter } = await countedDatabase(options.backend);
  let counted: Awaited<ReturnType<typeof measureOn>>;
  try {
    counted = await measureOn(database, counter, { ...options, turns: Math.min(options.turns, 100), rounds: 1 });
  } finally {
    await database.dispose();
  }
  const both = (a: { cpuMs: number }, b: { statements: number }) => ({ cpuMs: a.cpuMs, statements: b.statements });
  return {
    backend: options.backend,
    turns: options.turns,
    rounds: options.rounds,
    floor: {
      exit: both(cpu.floor.exit, counted.floor.exit),
      async: both(cpu.floor.async, counted.floor.async),
      sync: both(cpu.floor.sync, counted.floor.sync),
      stock: both(cpu.floor.stock, counted.floor.stock),
    },
    kazma: both(cpu.kazma, counted.kazma),
    ratio: cpu.ratio,
    ...(profile && { profile }),
  };
}
