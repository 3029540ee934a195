// CPU-ms and SQL statements per simple chat turn (fake model, no tools), Kazma's whole core path beside
// the floor: a bare one-node LangGraph graph on the same checkpointer and database, measured in the same
// process. Runs in a process of its own (see turn-throughput.ts) so the fake model's CPU is not counted.
import { randomUUID } from 'node:crypto';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { createCheckpointer } from '../../src/core/agent/checkpointer.ts';
import type { Actor, ChatRef, Message, MessageRef } from '../../src/core/chat/index.ts';
import { migrateDatabase, openDatabase } from '../../src/core/db/index.ts';
import { startAssembled } from '../../tests/helpers/assembled.ts';
import { createPgDatabase, freshDatabase, type Backend, type FreshDatabase } from '../../tests/helpers/databases.ts';
import { STANDARD_STEPS } from '../../tests/helpers/pglite-template.ts';
import { RecordingSurface } from '../../tests/helpers/recording-surface.ts';
import { countPgliteStatements, startCountingProxy, type StatementCounter } from './statements.ts';

export interface TurnCost {
  backend: Backend;
  turns: number;
  /** The floor: CPU-ms and statements per invoke of a one-node graph, per durability mode. */
  floor: Record<'exit' | 'sync', { cpuMs: number; statements: number }>;
  kazma: { cpuMs: number; statements: number };
}

/** A fresh migrated database whose statements are counted (PostgreSQL through a counting proxy). */
export async function countedDatabase(backend: Backend): Promise<{ database: FreshDatabase; counter: StatementCounter }> {
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
    database: { ...database, dispose: async () => { await database.close(); await proxy.close(); await created.drop(); } },
  };
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** The floor: a one-node graph that answers every message, on `chats` threads in turn. */
async function floor(database: FreshDatabase, counter: StatementCounter, durability: 'exit' | 'sync', turns: number, chats: number) {
  const checkpointer = await createCheckpointer(database);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('reply', (state) => ({ messages: [new AIMessage(`echo: ${String(state.messages.at(-1)!.content)}`)] }))
    .addEdge('__start__', 'reply')
    .compile({ checkpointer: checkpointer.saver });
  const run = `floor-${durability}-${randomUUID().slice(0, 8)}`;
  const invoke = (i: number) => graph.invoke({ messages: [new HumanMessage(`m${i}`)] }, { configurable: { thread_id: `${run}-${i % chats}` }, durability });
  for (let i = 0; i < Math.min(turns, 50); i++) await invoke(i); // warm-up
  const statements = counter.count;
  const started = process.cpuUsage();
  for (let i = 0; i < turns; i++) await invoke(i);
  const result = { cpuMs: cpuMs(started) / turns, statements: (counter.count - statements) / turns };
  await checkpointer.close();
  return result;
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
async function kazmaTurns(database: FreshDatabase, counter: StatementCounter, llmUrl: string, turns: number, chats: number) {
  const users = Array.from({ length: chats }, (_, i) => `telegram:${1000 + i}`);
  const k = await startAssembled({ model: { name: 'fake-model', base_url: llmUrl, max_retries: 0 }, access: { users } }, { database });
  const telegram = new AwaitedSurface('telegram');
  k.kazma.core.attachSurface(telegram);
  const turn = async (i: number) => {
    const chat = users[i % chats]! as ChatRef;
    const actor: Actor = { platform: 'telegram', id: chat.slice('telegram:'.length) };
    const replied = telegram.nextSend();
    await k.kazma.core.pipeline.handle({ kind: 'message', eventId: randomUUID(), platform: 'telegram', chat, actor, text: `m${i}` });
    await replied;
  };
  try {
    for (let i = 0; i < Math.min(turns, 50); i++) await turn(i); // warm-up
    const statements = counter.count;
    const started = process.cpuUsage();
    for (let i = 0; i < turns; i++) await turn(i);
    return { cpuMs: cpuMs(started) / turns, statements: (counter.count - statements) / turns };
  } finally {
    await k.close();
  }
}

/** The three measurements on one fresh database: CPU-ms and statements per turn each. */
async function measureOn(database: FreshDatabase, counter: StatementCounter, options: { llmUrl: string; turns: number; chats: number }) {
  const exit = await floor(database, counter, 'exit', options.turns, options.chats);
  const sync = await floor(database, counter, 'sync', options.turns, options.chats);
  const kazma = await kazmaTurns(database, counter, options.llmUrl, options.turns, options.chats);
  return { floor: { exit, sync }, kazma };
}

/**
 * Measures the floor and Kazma on `backend`, twice: CPU on a database reached directly (counting
 * statements through a proxy in this process would bill the proxy's CPU to the turn), then statements
 * on a fresh database whose statements are counted.
 */
export async function measureTurnCost(options: { backend: Backend; llmUrl: string; turns: number; chats: number }): Promise<TurnCost> {
  const direct = await freshDatabase(options.backend);
  let cpu: Awaited<ReturnType<typeof measureOn>>;
  try {
    cpu = await measureOn(direct, { count: 0 }, options);
  } finally {
    await direct.dispose();
  }
  const { database, counter } = await countedDatabase(options.backend);
  let counted: Awaited<ReturnType<typeof measureOn>>;
  try {
    counted = await measureOn(database, counter, { ...options, turns: Math.min(options.turns, 100) });
  } finally {
    await database.dispose();
  }
  const both = (a: { cpuMs: number }, b: { statements: number }) => ({ cpuMs: a.cpuMs, statements: b.statements });
  return {
    backend: options.backend,
    turns: options.turns,
    floor: { exit: both(cpu.floor.exit, counted.floor.exit), sync: both(cpu.floor.sync, counted.floor.sync) },
    kazma: both(cpu.kazma, counted.kazma),
  };
}
