// Every process re-reads the saved tool and skill switches every few seconds. A read is the settings table
// as its statement found it: one under way while an operator switched something off here came back with
// the old value and put it back — the tool (or the skill's tools) callable again until the next read.
// A read that overlapped a switch made here is now dropped; the next one has the change.
import { z } from 'zod';
import { expect, it } from 'vitest';
import { createLogger } from '../../src/core/log/index.ts';
import { SkillSwitches } from '../../src/core/skills/switches.ts';
import { RuntimeSettings } from '../../src/core/settings/store.ts';
import { ToolsOverlay } from '../../src/core/settings/tools-overlay.ts';
import { defineTool } from '../../src/core/tools/define.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { describeEachBackend } from '../helpers/databases.ts';

const tool = (name: string) =>
  defineTool({
    name,
    description: 'a test tool',
    input: z.object({}),
    tier: 'safe',
    effects: false,
    run: async () => 'ok',
  });

/** The real settings store, whose next read (once armed) waits for `release` after its statement ran. */
class HeldSettings extends RuntimeSettings {
  hold: { release: Promise<void>; read?: () => void } | undefined;
  override async get<T>(key: string, schema: z.ZodType<T>): Promise<{ value: T; updatedAt: Date } | undefined> {
    const value = await super.get(key, schema);
    const hold = this.hold;
    if (hold) {
      this.hold = undefined;
      hold.read?.();
      await hold.release;
    }
    return value;
  }
}

/** Arms the next read; resolves `read` once it ran, and lets it return on `release()`. */
function holdNextRead(settings: HeldSettings) {
  let release!: () => void;
  let read!: () => void;
  const done = new Promise<void>((resolve) => (read = resolve));
  settings.hold = { release: new Promise<void>((resolve) => (release = resolve)), read };
  return { read: done, release };
}

describeEachBackend('a periodic read of the switches under way while one is switched here', (database) => {
  const logger = createLogger({ level: 'silent', pretty: false });

  it('a skill switched off stays off', async () => {
    const settings = new HeldSettings(database().db);
    const registry = new ToolRegistry();
    const name = `skill_${Math.random().toString(36).slice(2, 8)}`;
    const skillTool = tool(`${name}_fetch`);
    registry.register(skillTool);
    const switches = new SkillSwitches({ settings, registry, skills: [{ name, tools: [skillTool] }], logger });
    await switches.apply();
    const held = holdNextRead(settings);
    const periodic = switches.apply();
    await held.read; // the periodic read has the old value (on)
    await switches.setEnabled(name, false, 'maya');
    held.release();
    await periodic;
    // Before the fix: on again, and its tool back in the registry.
    expect(switches.isOn(name)).toBe(false);
    expect(registry.list({ includeDisabled: true }).map((t) => t.name)).not.toContain(skillTool.name);
    await switches.apply(); // the next read has the saved switch
    expect(switches.isOn(name)).toBe(false);
  });

  it('a tool toggled off stays off', async () => {
    const settings = new HeldSettings(database().db);
    const registry = new ToolRegistry();
    const name = `tool_${Math.random().toString(36).slice(2, 8)}`;
    registry.register(tool(name));
    const overlay = new ToolsOverlay({ settings, registry, logger });
    // Another process toggled something earlier: the saved switches are newer than what this process applied.
    await new ToolsOverlay({
      settings: new RuntimeSettings(database().db),
      registry: new ToolRegistry().register(tool('other')),
      logger,
    }).toggle('other', 'ana');
    const held = holdNextRead(settings);
    const periodic = overlay.apply();
    await held.read; // the periodic read has the saved list without this tool
    expect(await overlay.toggle(name, 'maya')).toBe(false);
    held.release();
    await periodic;
    // Before the fix: the stale list was applied and the tool was on again.
    expect(registry.disabled.has(name)).toBe(true);
    await overlay.apply();
    expect(registry.disabled.has(name)).toBe(true);
  });
});
