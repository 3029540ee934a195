import { stringify } from 'yaml';
import type { ChatCommand } from '../commands/registry.ts';
import { didYouMean } from '../config/did-you-mean.ts';

/** What `/config` uses of the settings module. */
export interface ConfigCommandPort {
  /** Every tool, on or off, with its tier (`ask` when it has none). */
  tools(): Array<{ name: string; on: boolean; tier: string }>;
  /** Switches a tool; returns whether it is now on. */
  toggle(name: string, by: string): Promise<boolean>;
  /** The effective configuration (kazma.yaml, the environment and run-time settings), secrets masked. */
  effective(): unknown;
  audit(entry: { command: string; outcome: 'changed' | 'read'; detail?: string }, ctx: { actor: { platform: string; id: string; displayName?: string }; chat: string }): Promise<void>;
}

const USAGE = 'Usage: /config tools list · /config tools toggle <name> · /config show · /config export';

/**
 * `/config` (operators only): tools on and off at run time, and the effective configuration. A change
 * is saved in the database (never in kazma.yaml), applies to the next model request, and is audited.
 * The agent cannot reach it: commands are never tools.
 */
export function configCommand(port: ConfigCommandPort): ChatCommand {
  return {
    name: 'config',
    summary: 'change settings (operators): /config tools list · /config tools toggle <name> · /config show · /config export',
    operatorOnly: true,
    serial: false,
    async run(ctx) {
      const [area, action, name] = ctx.args.map((a) => a.toLowerCase());
      const by = ctx.actor.displayName ?? `${ctx.actor.platform}:${ctx.actor.id}`;
      if (area === 'tools' && (action === 'list' || action === undefined)) {
        const lines = port.tools().map((t) => `${t.on ? '🟢' : '⚪'} ${t.name} — ${t.on ? 'on' : 'off'} — ${t.tier === 'safe' ? 'runs freely' : `asks first (${t.tier})`}`);
        return ctx.reply(['Tools:', ...lines, 'Switch one with /config tools toggle <name>.'].join('\n'));
      }
      if (area === 'tools' && action === 'toggle') {
        const tools = port.tools();
        if (!name) return ctx.reply('Usage: /config tools toggle <name> (see /config tools list).');
        const tool = tools.find((t) => t.name.toLowerCase() === name);
        if (!tool) {
          const guess = didYouMean(name, tools.map((t) => t.name));
          return ctx.reply(`There is no tool "${name}".${guess ? ` Did you mean ${guess}?` : ''} Tools: ${tools.map((t) => t.name).join(', ')}.`);
        }
        const on = await port.toggle(tool.name, by);
        await port.audit({ command: `tools toggle ${tool.name}`, outcome: 'changed', detail: on ? 'on' : 'off' }, ctx);
        return ctx.reply(on
          ? `${tool.name} is on again: the model is offered it from the next message (saved; survives restarts).`
          : `${tool.name} is off: the model is not offered it from the next message (saved; survives restarts).`);
      }
      if (area === 'show' || area === 'export') {
        await port.audit({ command: area, outcome: 'read' }, ctx);
        const yaml = stringify(port.effective(), { lineWidth: 0 }).trimEnd();
        return ctx.reply(area === 'show' ? `Effective configuration (secrets masked):\n${yaml}` : `# kazma.yaml, exported (secrets redacted: put them back as \${ENV} or vault:// pointers)\n${yaml}`);
      }
      return ctx.reply(USAGE);
    },
  };
}
