import { z } from 'zod';
import type { Db } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import type { ToolRegistry } from '../tools/index.ts';
import { LocalChanges } from './local-changes.ts';
import type { RuntimeSettings } from './store.ts';

/** The settings key of the tools switched off at run time (overrides `tools.disabled`). */
export const TOOLS_DISABLED = 'tools.disabled';
const names = z.array(z.string());

/**
 * Keeps the registry's on/off switches equal to the saved ones: at start, and then every few seconds,
 * so a toggle taken by one process reaches every process on the database.
 */
export class ToolsOverlay {
  #seen = 0;
  readonly #local = new LocalChanges();
  #timer: NodeJS.Timeout | undefined;

  /** `onError`: what a failed read says (a database outage is said once); default a warning. */
  constructor(
    private readonly o: {
      settings: RuntimeSettings;
      registry: ToolRegistry;
      logger?: Logger;
      onError?: (error: unknown) => void;
    },
  ) {}

  /** Applies the saved switches, if any changed since last time. */
  async apply(): Promise<void> {
    const read = await this.#local.read(() => this.o.settings.get(TOOLS_DISABLED, names));
    if (read.stale) return; // a toggle here overlapped it; the next read has it
    const saved = read.value;
    if (!saved || saved.updatedAt.getTime() === this.#seen) return;
    this.#seen = saved.updatedAt.getTime();
    for (const tool of this.o.registry.list({ includeDisabled: true }))
      this.o.registry.setDisabled(tool.name, saved.value.includes(tool.name));
  }

  /** Switches one tool and saves every switch; returns whether it is now on. */
  async toggle(name: string, by: string): Promise<boolean> {
    const on = this.o.registry.disabled.has(name);
    await this.set(name, on, by);
    return on;
  }

  /**
   * Sets one tool on or off and saves every switch, on `db` when given (a command's transaction: should it
   * roll back, the next read of the saved switches puts this process's back).
   */
  async set(name: string, on: boolean, by: string, db?: Db): Promise<void> {
    await this.#local.change(async () => {
      this.o.registry.setDisabled(name, !on);
      await this.o.settings.set(TOOLS_DISABLED, [...this.o.registry.disabled].sort(), by, db);
    });
  }

  follow(everyMs: number): void {
    const failed =
      this.o.onError ??
      ((error: unknown) => this.o.logger?.warn({ err: error }, 'could not read the saved tool switches'));
    this.#timer = setInterval(() => void this.apply().catch(failed), everyMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
