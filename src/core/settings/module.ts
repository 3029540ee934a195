import type { AccessPolicy } from '../chat/access.ts';
import type { CommandRegistry } from '../commands/registry.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import { storedActor } from '../decisions/wording.ts';
import type { Logger } from '../log/index.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { maskSecrets } from '../vault/mask.ts';
import { configCommand } from './commands.ts';
import { RuntimeSettings } from './store.ts';
import { ToolsOverlay } from './tools-overlay.ts';

/** What {@link createSettings} needs; build it after every module that registers tools. */
export interface SettingsDeps {
  loaded: LoadedConfig;
  db: Db;
  registry: ToolRegistry;
  commands: CommandRegistry;
  access: AccessPolicy;
  logger: Logger;
}

/** How often a process picks up switches another process saved. */
const FOLLOW_MS = 5_000;

/**
 * The settings module: run-time settings over kazma.yaml, `/config`, and the audit of every attempt
 * (a refused `/config` by a non-operator included).
 */
export async function createSettings({ loaded, db, registry, commands, access, logger }: SettingsDeps) {
  const settings = new RuntimeSettings(db);
  const overlay = new ToolsOverlay({ settings, registry, logger });
  await overlay.apply();
  overlay.follow(FOLLOW_MS);
  const audit: Parameters<typeof configCommand>[0]['audit'] = (entry, ctx) =>
    settings.audit({ ...entry, actor: storedActor(ctx.actor, access.operatorOf(ctx.actor)?.name), chat: ctx.chat, command: `/config ${entry.command}` });
  commands.onRefused(async (refusal) => {
    if (refusal.command !== 'config') return;
    await settings.audit({ actor: storedActor(refusal.actor), chat: refusal.chat, command: `/config ${refusal.rest}`.trim(), outcome: 'refused', detail: 'not an operator' });
  });
  const command = configCommand({
    tools: () => registry.list({ includeDisabled: true }).map((t) => ({ name: t.name, on: !registry.disabled.has(t.name), tier: t.tier ?? 'ask' })),
    toggle: (name, by) => overlay.toggle(name, by),
    effective: () => maskSecrets({ ...loaded.config, tools: { ...loaded.config.tools, disabled: [...registry.disabled].sort() } }, { secrets: loaded.secrets }),
    audit,
  });
  return { settings, overlay, command, stop: () => overlay.stop() };
}
