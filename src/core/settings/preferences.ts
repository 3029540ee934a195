import { eq, like, or } from 'drizzle-orm';
import { type Db, settings } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { type ChatRef, chatOf, isChatRef } from '../surface/index.ts';
import { LocalChanges } from './local-changes.ts';
import type { RuntimeSettings } from './store.ts';

/** What an operator sets from chat: the house instructions added to the system prompt, and the model in use. */
export type PreferenceKind = 'prompt' | 'model';

/** Where a preference applies: every chat, or one chat (its own value wins over the global one). */
export type PreferenceScope = { global: true } | { chat: string };

/** The settings key of a preference: `prompt` (global) or `prompt@telegram:42` (one chat). */
export function preferenceKey(kind: PreferenceKind, scope: PreferenceScope): string {
  return 'chat' in scope ? `${kind}@${scope.chat}` : kind;
}

/** What the agent reads of the preferences, per model call (from memory: no statement per call). */
export interface PreferencesView {
  /** The house instructions for `chat`: the global ones, then the chat's own (each absent when unset). */
  instructions(chat: string): string[];
  /** The model name chosen for `chat` (its own choice, else the global one), or undefined: kazma.yaml's order. */
  model(chat: string): string | undefined;
}

/**
 * `/config prompt` and `/config model`, saved in the settings table (one row per kind and scope) and kept in
 * memory: read at start and every few seconds after, so a change made by one process reaches every process
 * on the database; this process's own change applies at once (the next model request). A read that overlapped
 * a local change is dropped (LocalChanges), so it cannot put an old value back.
 */
export class ChatPreferences implements PreferencesView {
  #values = new Map<string, string>();
  readonly #local = new LocalChanges();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly o: { db: Db; settings: RuntimeSettings; logger?: Logger; onError?: (error: unknown) => void },
  ) {}

  instructions(chat: string): string[] {
    const lines = [this.#values.get('prompt'), this.#values.get(preferenceKey('prompt', { chat: ownChat(chat) }))];
    return lines.filter((line): line is string => line !== undefined);
  }

  model(chat: string): string | undefined {
    return this.#values.get(preferenceKey('model', { chat: ownChat(chat) })) ?? this.#values.get('model');
  }

  /** The value set for exactly `scope` (no fallback to the global one). */
  get(kind: PreferenceKind, scope: PreferenceScope): string | undefined {
    return this.#values.get(preferenceKey(kind, scope));
  }

  /** Sets (a string) or clears (undefined) one preference, saved on `db` (a command's transaction) when given. */
  async set(kind: PreferenceKind, scope: PreferenceScope, value: string | undefined, by: string, db?: Db) {
    const key = preferenceKey(kind, scope);
    await this.#local.change(async () => {
      if (value === undefined) await this.o.settings.clear(key, db);
      else await this.o.settings.set(key, value, by, db);
      if (value === undefined) this.#values.delete(key);
      else this.#values.set(key, value);
    });
  }

  /** Reads every saved preference (one statement). */
  async load(): Promise<void> {
    const read = await this.#local.read(() =>
      this.o.db
        .select({ key: settings.key, value: settings.value })
        .from(settings)
        .where(or(...KINDS.flatMap((kind) => [eq(settings.key, kind), like(settings.key, `${kind}@%`)]))),
    );
    if (read.stale) return; // a change here overlapped it; the next read has it
    this.#values = new Map(
      read.value.filter((row) => typeof row.value === 'string').map((row) => [row.key, row.value as string]),
    );
  }

  follow(everyMs: number): void {
    const failed =
      this.o.onError ?? ((error: unknown) => this.o.logger?.warn({ err: error }, 'could not read the saved prompt'));
    this.#timer = setInterval(() => void this.load().catch(failed), everyMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

const KINDS: readonly PreferenceKind[] = ['prompt', 'model'];

/** A thread's chat (`slack:C1:1712.01` → `slack:C1`): a chat's preferences cover its threads. */
function ownChat(chat: string): string {
  return isChatRef(chat) ? chatOf(chat as ChatRef) : chat;
}
