// LangGraph's own checkpointer conformance suite, run against the saver exactly as Kazma configures it
// (createCheckpointer: schema `langgraph`, the serialised pool on PGlite), on both storage backends.
import {
  deltaChannelHistoryTests,
  validate,
  type CheckpointSaverTestInitializer,
} from '@langchain/langgraph-checkpoint-validation';
import type { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCheckpointer, type Checkpointer } from '../../../src/core/agent/checkpoint/checkpointer.ts';
import { BACKENDS, freshDatabase, type Backend, type FreshDatabase } from '../../helpers/databases.ts';

// The suite calls describe/it/expect as globals (its own CLI runs vitest with `globals: true`); our
// config keeps globals off, so hand it this file's functions.
Object.assign(globalThis, { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach });

/** One fresh database per backend; each saver instance starts on empty tables, as the suite requires. */
function kazmaSaver(kind: Backend): CheckpointSaverTestInitializer<PostgresSaver> {
  let database: FreshDatabase | undefined;
  let open: Checkpointer | undefined;
  const ready = (): FreshDatabase => {
    if (!database) throw new Error('database not ready');
    return database;
  };
  return {
    // Not a name the suite knows, so it skips nothing.
    checkpointerName: `kazma-checkpointer[${kind}]`,
    beforeAllTimeout: 60_000,
    beforeAll: async () => {
      database = await freshDatabase(kind);
    },
    afterAll: async () => {
      await database?.dispose();
    },
    createCheckpointer: async () => {
      open = await createCheckpointer(ready());
      return open.saver;
    },
    destroyCheckpointer: async () => {
      await open?.close();
      await ready().db.execute(
        sql`truncate langgraph.checkpoints, langgraph.checkpoint_blobs, langgraph.checkpoint_writes`,
      );
    },
  };
}

for (const kind of BACKENDS) {
  describe(`LangGraph checkpointer conformance [${kind}]`, () => {
    const initializer = kazmaSaver(kind);
    validate(initializer);
    // Opt-in upstream (not part of validate()); LangGraph's own PostgresSaver spec runs it too.
    deltaChannelHistoryTests(initializer);
  });
}
