// One "Kazma process" for restart.test.ts: opens the database as a start would (migrate with the
// checkpointer step), appends one message to a thread, prints what it saw before and after, exits.
// Usage: node --import tsx restart-child.ts '{"url"|"dataDir": ..., "thread": ..., "label": ...}'
import { checkpointerSetupStep, createCheckpointer } from '../../../src/core/agent/checkpointer.ts';
import { migrateDatabase, openDatabase } from '../../../src/core/db/index.ts';
import { appendGraph, texts } from './graphs.ts';

const args = JSON.parse(process.argv[2] ?? '{}') as { url?: string; dataDir?: string; thread: string; label: string };
const database = await openDatabase({ url: args.url, dataDir: args.dataDir, poolSize: 2 });
try {
  await migrateDatabase(database, [checkpointerSetupStep]);
  const checkpointer = await createCheckpointer(database);
  try {
    const graph = appendGraph(checkpointer.saver, args.label);
    const config = { configurable: { thread_id: args.thread } };
    const before = texts((await graph.getState(config)).values.messages ?? []);
    const after = texts((await graph.invoke({ messages: [] }, config)).messages);
    process.stdout.write(`${JSON.stringify({ pid: process.pid, before, after })}\n`);
  } finally {
    await checkpointer.close();
  }
} finally {
  await database.close();
}
