// `/memory`: what Kazma remembers of the person who asks (and this chat's shared notes), searched and
// forgotten by the person themselves. Nobody sees or forgets another person's notes; a chat's shared
// notes are forgotten by an operator.
import { type ChatCommand, runSubcommands, type SubcommandTable, usageLines } from '../commands/index.ts';
import { ellipsis } from '../surface/index.ts';
import type { Memory, TurnParties } from './service.ts';
import type { MemoryNote } from './store.ts';

/** What /memory uses of the memory module. */
export type MemoryCommandsPort = Pick<Memory, 'ownersOf' | 'recent' | 'search' | 'find' | 'forgetOn'>;

const RECENT = 10;

function lines(notes: readonly MemoryNote[], zone: string, chatOwner: string): string[] {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return notes.map(
    (n) =>
      `${n.id} — ${day.format(n.createdAt)}${n.owner === chatOwner ? ' (this chat)' : ''} — ${ellipsis(n.text, 121)}` +
      (n.conflictsWith ? ` (disagrees with ${n.conflictsWith})` : ''),
  );
}

/** `/memory`, `/memory search <words>`, `/memory forget <id>`. */
export function memoryCommand(port: MemoryCommandsPort, zone: string): ChatCommand {
  const turnOf = (ctx: { chat: string; actor: TurnParties['requester'] }): TurnParties => ({
    chat: ctx.chat,
    requester: ctx.actor,
  });
  const table: SubcommandTable = {
    command: 'memory',
    ignoreCase: true,
    subcommands: {
      search: {
        params: '<words>',
        required: { see: '/memory' },
        async run(ctx, { rest }) {
          const turn = turnOf(ctx);
          const found = await port.search(turn, rest);
          if (found.length === 0) return ctx.reply(`Nothing I remember matches "${ellipsis(rest, 61)}".`);
          return ctx.reply(
            ['Remembered, best match first:', ...lines(found, zone, port.ownersOf(turn).chat)].join('\n'),
          );
        },
      },
      forget: {
        params: '<id>',
        required: { see: '/memory' },
        maxWords: 1,
        async run(ctx, { words: [id] }) {
          const turn = turnOf(ctx);
          const note = await port.find(turn, id!);
          const shared = note?.owner === port.ownersOf(turn).chat;
          if (!note || (shared && ctx.role !== 'operator'))
            return ctx.reply(`There is no note ${id} of yours to forget (see /memory).`);
          const { forgot } = await ctx.once('memory forget', async (tx) => ({
            forgot: await port.forgetOn(tx, turn, [id!]),
          }));
          return ctx.reply(
            forgot > 0 ? `Forgot ${id}: its words are erased, and it stays forgotten.` : `${id} was already forgotten.`,
          );
        },
      },
    },
    async none(ctx) {
      const turn = turnOf(ctx);
      const notes = await port.recent(turn, RECENT);
      if (notes.length === 0)
        return ctx.reply('I remember nothing about you yet. Tell me something and ask me to remember it.');
      const { chat } = port.ownersOf(turn);
      return ctx.reply(
        [
          `What I remember about you${notes.some((n) => n.owner === chat) ? ' and this chat' : ''}, newest first:`,
          ...lines(notes, zone, chat),
          'Search with /memory search <words>; forget one with /memory forget <id>.',
        ].join('\n'),
      );
    },
    usage: ([search, forget]) => `Usage: /memory lists what I remember; ${search}; ${forget}.`,
  };
  return {
    name: 'memory',
    summary: `what Kazma remembers about you: /memory; ${usageLines(table).join('; ')}`,
    serial: false,
    writes: true,
    run: runSubcommands(table),
  };
}
