// Slash commands: registered at start by one bulk overwrite of the application's global commands (so a
// command removed from Kazma disappears from Discord too), one per core command plus `/config`. Each
// takes its arguments as one optional `args` text, exactly what would follow the name when typed, so the
// core's commands parse them as they do everywhere else. Answers are ephemeral (interactions.ts).
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  InteractionContextType,
  Routes,
  type REST,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import type { Logger } from '../../core/log/index.ts';

/** Named in Discord even before the core has it; the core answers what it cannot do. */
const ALWAYS: ReadonlyArray<{ name: string; summary: string }> = [
  { name: 'config', summary: 'change settings (operators)' },
];

/** Commands that take nothing after their name. */
const NO_ARGS = new Set(['help', 'new', 'compact', 'stop', 'status']);

/** Discord's rules: names of 1–32 lower-case letters, digits, - and _; descriptions of 1–100 characters. */
const NAME = /^[-_a-z0-9]{1,32}$/;
const fit = (s: string): string => ([...s].length <= 100 ? s : `${[...s].slice(0, 99).join('')}…`);

/**
 * The slash command definitions for the core's commands (plus `/config`), usable in servers and in DMs.
 * @example slashCommands([{ name: 'status', summary: 'show status' }])[0] // { name: 'status', type: 1, … }
 */
export function slashCommands(
  commands: ReadonlyArray<{ name: string; summary: string }>,
): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  const all = [...commands, ...ALWAYS.filter((a) => !commands.some((c) => c.name === a.name))];
  return all
    .filter((c) => NAME.test(c.name))
    .map((c) => ({
      name: c.name,
      description: fit(c.summary || c.name),
      type: ApplicationCommandType.ChatInput,
      contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
      options: NO_ARGS.has(c.name)
        ? []
        : [
            {
              type: ApplicationCommandOptionType.String,
              name: 'args',
              description: 'what follows the command when typed, e.g. "grants"',
              required: false,
            },
          ],
    }));
}

/** Overwrites the global commands; a failure is logged, never fatal (typed commands still work in DMs). */
export async function registerCommands(
  rest: REST,
  applicationId: string,
  body: RESTPostAPIChatInputApplicationCommandsJSONBody[],
  logger?: Logger,
): Promise<void> {
  try {
    await rest.put(Routes.applicationCommands(applicationId), { body });
  } catch (error) {
    logger?.warn(
      { err: error, application: applicationId },
      'could not register the Discord slash commands; check discord.application_id',
    );
  }
}
