// `/config prompt` and `/config model`: the house instructions and the model in use, set by an operator
// from chat for every chat or for this one (`--here`). Saved in the database, audited, applied from the
// next model request; the model cannot reach them (commands are never tools; `prompt` and `model` are
// protected settings).
import type { CommandContext, SubcommandBranch, SubcommandInput } from '../commands/index.ts';
import { didYouMean } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import { chatOf } from '../surface/index.ts';
import type { ChatPreferences, PreferenceKind, PreferenceScope } from './preferences.ts';

/** What the two sub-commands use. */
export interface PreferenceCommandsPort {
  preferences: ChatPreferences;
  /** The models configured in kazma.yaml (`model`, then `fallbacks`), by name, in the order tried. */
  models(): string[];
  audit(entry: { command: string; outcome: 'changed'; detail?: string }, ctx: CommandContext, tx: Db): Promise<void>;
}

/** The longest house instructions taken: they ride in every model request. */
export const MAX_INSTRUCTIONS = 4_000;

/** `--here` as the first word: this chat only; otherwise every chat. */
function scoped(
  ctx: CommandContext,
  input: SubcommandInput,
): { scope: PreferenceScope; words: string[]; rest: string } {
  if (input.words[0]?.toLowerCase() !== '--here') return { scope: { global: true }, ...input };
  return { scope: { chat: chatOf(ctx.chat) }, words: input.words.slice(1), rest: input.rest.replace(/^\S+\s*/, '') };
}

const where = (scope: PreferenceScope) => ('chat' in scope ? 'in this chat' : 'in every chat');

async function save(
  port: PreferenceCommandsPort,
  ctx: CommandContext,
  change: { kind: PreferenceKind; scope: PreferenceScope; value: string | undefined },
): Promise<void> {
  const by = ctx.actor.displayName ?? `${ctx.actor.platform}:${ctx.actor.id}`;
  const verb = change.value === undefined ? 'reset' : change.kind === 'model' ? 'use' : 'set';
  await ctx.once(`${change.kind} ${verb}`, async (tx) => {
    await port.preferences.set(change.kind, change.scope, change.value, by, tx);
    const detail = `${'chat' in change.scope ? change.scope.chat : 'global'}: ${change.value ?? '(reset)'}`;
    await port.audit({ command: `${change.kind} ${verb}`, outcome: 'changed', detail }, ctx, tx);
    return true;
  });
}

function showPrompt(port: PreferenceCommandsPort, ctx: CommandContext): Promise<void> {
  const global = port.preferences.get('prompt', { global: true });
  const here = port.preferences.get('prompt', { chat: chatOf(ctx.chat) });
  return ctx.reply(
    [
      'House instructions (added to the system prompt):',
      `Every chat: ${global ?? '(none)'}`,
      `This chat: ${here ?? '(none)'}`,
      'Change them with /config prompt set [--here] <text>; remove them with /config prompt reset [--here].',
    ].join('\n'),
  );
}

function showModel(port: PreferenceCommandsPort, ctx: CommandContext): Promise<void> {
  const models = port.models();
  if (models.length === 0) return ctx.reply('No model is configured: set model.name in kazma.yaml.');
  const chosen = port.preferences.model(chatOf(ctx.chat));
  const inUse = chosen && models.includes(chosen) ? chosen : models[0];
  return ctx.reply(
    `Model in use here: ${inUse}${chosen ? ' (chosen with /config model)' : ' (kazma.yaml)'}.\n` +
      `Configured: ${models.join(', ')}. Switch with /config model use [--here] <name>.`,
  );
}

/** `/config prompt show | set [--here] <text> | reset [--here]`. */
export function promptSubcommand(port: PreferenceCommandsPort): SubcommandBranch {
  return {
    subcommands: {
      show: { run: (ctx) => showPrompt(port, ctx) },
      set: {
        params: '[--here] <text>',
        required: { see: '/config prompt' },
        run: async (ctx, input) => {
          const { scope, rest } = scoped(ctx, input);
          if (!rest) return ctx.reply('Usage: /config prompt set [--here] <text> (see /config prompt).');
          if (rest.length > MAX_INSTRUCTIONS)
            return ctx.reply(
              `House instructions take at most ${MAX_INSTRUCTIONS} characters; these have ${rest.length}.`,
            );
          await save(port, ctx, { kind: 'prompt', scope, value: rest });
          return ctx.reply(`Saved: the house instructions apply ${where(scope)} from the next message.`);
        },
      },
      reset: {
        params: '[--here]',
        run: async (ctx, input) => {
          const { scope } = scoped(ctx, input);
          await save(port, ctx, { kind: 'prompt', scope, value: undefined });
          return ctx.reply(`Removed: no house instructions ${where(scope)} from the next message.`);
        },
      },
    },
    none: (ctx) => showPrompt(port, ctx),
  };
}

/** `/config model show | use [--here] <name> | reset [--here]`: among the models kazma.yaml configures. */
export function modelSubcommand(port: PreferenceCommandsPort): SubcommandBranch {
  return {
    subcommands: {
      show: { run: (ctx) => showModel(port, ctx) },
      use: {
        params: '[--here] <name>',
        required: { see: '/config model' },
        run: async (ctx, input) => {
          const { scope, words } = scoped(ctx, input);
          const models = port.models();
          const name = words.join(' ');
          if (!models.includes(name)) {
            const guess = didYouMean(name, models);
            return ctx.reply(
              `There is no configured model "${name}".${guess ? ` Did you mean ${guess}?` : ''} ` +
                `Configured: ${models.join(', ') || 'none'} (model and model.fallbacks in kazma.yaml).`,
            );
          }
          await save(port, ctx, { kind: 'model', scope, value: name });
          return ctx.reply(`Saved: ${name} answers ${where(scope)} from the next message; the others stay fallbacks.`);
        },
      },
      reset: {
        params: '[--here]',
        run: async (ctx, input) => {
          const { scope } = scoped(ctx, input);
          await save(port, ctx, { kind: 'model', scope, value: undefined });
          return ctx.reply(`Reset: kazma.yaml's model order applies ${where(scope)} from the next message.`);
        },
      },
    },
    none: (ctx) => showModel(port, ctx),
  };
}
