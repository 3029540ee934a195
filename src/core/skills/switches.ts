import { z } from 'zod';
import type { Logger } from '../log/index.ts';
import { LocalChanges, type RuntimeSettings } from '../settings/index.ts';
import type { ToolDefinition, ToolRegistry } from '../tools/index.ts';

/** Settings key of the skills switched at run time (`/config tools toggle <skill>`): name → on. */
export const SKILL_SWITCHES = 'skills.switches';
const switches = z.record(z.string(), z.boolean());

/** A loaded skill's tools, as registered (renamed ones under their namespaced name). */
export interface SkillTools {
  name: string;
  tools: readonly ToolDefinition[];
}

/**
 * A skill is switched whole, like an MCP server: off takes its tools out of the registry (so nothing
 * can call them and the model is not offered them), on puts them back. The switches live in the
 * settings table, so they survive restarts and reach every process on the database within a few seconds.
 */
export class SkillSwitches {
  readonly #off = new Set<string>();
  readonly #local = new LocalChanges();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly o: {
      settings: RuntimeSettings;
      registry: ToolRegistry;
      skills: readonly SkillTools[];
      logger: Logger;
      onError?: (error: unknown) => void;
    },
  ) {}

  isOn(name: string): boolean {
    return !this.#off.has(name);
  }

  /** Reads the saved switches and brings the registry in line with them. */
  async apply(): Promise<void> {
    const read = await this.#local.read(() => this.o.settings.get(SKILL_SWITCHES, switches));
    if (read.stale) return; // a switch here overlapped it; the next read has it
    const saved = read.value?.value ?? {};
    for (const skill of this.o.skills) this.#set(skill, saved[skill.name] ?? true);
  }

  /** Switches a skill and saves it. */
  async setEnabled(name: string, on: boolean, by: string): Promise<void> {
    const skill = this.o.skills.find((s) => s.name === name);
    if (!skill) return;
    await this.#local.change(async () => {
      this.#set(skill, on);
      const saved = (await this.o.settings.get(SKILL_SWITCHES, switches))?.value ?? {};
      await this.o.settings.set(SKILL_SWITCHES, { ...saved, [name]: on }, by);
    });
  }

  follow(everyMs: number): void {
    const failed =
      this.o.onError ??
      ((error: unknown) => this.o.logger.warn({ err: error }, 'could not read the saved skill switches'));
    this.#timer = setInterval(() => void this.apply().catch(failed), everyMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #set(skill: SkillTools, on: boolean): void {
    if (on === this.isOn(skill.name)) return;
    if (on) this.#off.delete(skill.name);
    else this.#off.add(skill.name);
    for (const tool of skill.tools) {
      if (!on) this.o.registry.unregister(tool.name);
      else if (!this.o.registry.list({ includeDisabled: true }).some((t) => t.name === tool.name))
        this.o.registry.register(tool);
    }
  }
}
