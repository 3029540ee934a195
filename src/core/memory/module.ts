import { join } from 'node:path';
import type { AccessPolicy } from '../chat/index.ts';
import type { Clock } from '../clock.ts';
import type { ChatCommand } from '../commands/index.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import type { ToolRegistry } from '../tools/index.ts';
import { memoryCommand } from './commands.ts';
import { EmbeddingsClient, embeddingsSettings } from './embeddings.ts';
import { ForgetJournal } from './journal.ts';
import { Memory } from './service.ts';
import { MemoryStore } from './store.ts';
import { memoryTools } from './tools.ts';

/** `memory.forget_journal`, or its default under data_dir. */
export const forgetJournalPath = ({ config }: LoadedConfig): string =>
  config.memory.forget_journal || join(config.data_dir, 'memory-forgotten.jsonl');

/** What {@link createMemory} needs. */
export interface MemoryModuleDeps {
  loaded: LoadedConfig;
  db: Db;
  access: Pick<AccessPolicy, 'operatorOf'>;
  /** Where `memory_store`, `memory_search` and `memory_forget` are registered. */
  registry: ToolRegistry;
  clock: Clock;
  logger: Logger;
}

/** The memory module, its tools (registered here) and `/memory`: undefined when `memory.enabled` is false. */
export function createMemory({
  loaded,
  db,
  access,
  registry,
  clock,
  logger,
}: MemoryModuleDeps): { memory: Memory; commands: ChatCommand[] } | undefined {
  const { config } = loaded;
  if (!config.memory.enabled) return undefined;
  const settings = embeddingsSettings(config);
  const { recall } = config.memory;
  const memory = new Memory({
    store: new MemoryStore({ db, clock, journal: new ForgetJournal(forgetJournalPath(loaded)) }),
    ...(settings && { embeddings: new EmbeddingsClient(settings) }),
    recall: {
      minScore: recall.min_score,
      maxGap: recall.max_gap,
      maxNotes: recall.max_notes,
      maxTokens: recall.max_tokens,
      minBackground: recall.min_background,
    },
    zone: config.time.zone,
    operatorName: (actor) => access.operatorOf(actor)?.name,
    logger,
  });
  for (const tool of memoryTools(memory)) registry.register(tool);
  return { memory, commands: [memoryCommand(memory, config.time.zone)] };
}
