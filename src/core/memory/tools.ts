import { z } from 'zod';
import { MEMORY_SOURCES } from '../db/index.ts';
import { RefusedBeforeEffect } from '../effects/index.ts';
import { defineTool, type ToolContext } from '../tools/index.ts';
import type { RememberOutcome } from './remember.ts';
import type { Memory } from './service.ts';

type MemoryPort = Pick<Memory, 'remember' | 'find' | 'forgetOn' | 'search'>;

/** The turn a call belongs to: memory is always someone's. */
function turnOf(ctx: ToolContext) {
  if (!ctx.turn) throw new RefusedBeforeEffect('memory belongs to a person: this call has no one who asked');
  return ctx.turn;
}

const TOLD: Record<RememberOutcome['outcome'], (o: RememberOutcome) => string> = {
  stored: (o) => `Remembered (${o.id})${o.superseded.length > 0 ? `, replacing ${o.superseded.join(', ')}` : ''}.`,
  conflict: (o) =>
    `Kept as ${o.id} beside ${o.conflictsWith}: the person said otherwise, and a weaker source never ` +
    'overwrites that. Mention the conflict if it matters.',
  duplicate: (o) => `Already remembered (${o.id}).`,
  older: (o) =>
    `Kept as ${o.id}, as history: ${o.newer} is true since later, and an older fact never overwrites a newer one.`,
  forgotten: () =>
    'Not stored: the person asked to forget this. Only their saying it again (source "stated") stores it.',
};

const NOTE_ID = z.string().regex(/^mem_[0-9a-f]+$/, { message: 'a note id, e.g. mem_1a2b3c' });
const idsOf = (id: string | string[] | undefined) => (id === undefined ? [] : [id].flat());
const listed = (notes: { id: string; text: string }[]) => notes.map((n) => `[${n.id}] ${n.text}`).join('; ');

/**
 * `memory_store`, `memory_search` and `memory_forget`, the model's way into memory.
 *
 * - `memory_store` (safe, effects): adds a note to the memory of the person who asked (or the chat's
 *   shared notes). No approval: it writes only to that person's own memory in Kazma's database, changes
 *   nothing outside, overwrites nothing a stronger source said (the provenance ladder), and can be
 *   forgotten; a card for every "remember that…" would make memory unusable.
 * - `memory_search` (safe, no effects): the person's notes that bear on a query, fenced as data.
 * - `memory_forget` (write): forgetting cannot be undone, so a person approves it, and a page the model
 *   read cannot make it erase someone's memory. By `id` (one or many): the card lists each note's words,
 *   and exactly those are forgotten. By `query`: nothing is forgotten; the matching notes come back with
 *   their ids, to forget by id — so the card shows exactly what goes, however many. A note that is not the
 *   asker's is refused before any card.
 */
export function memoryTools(memory: MemoryPort) {
  return [
    defineTool({
      name: 'memory_store',
      description:
        'Remembers a short note about the person (or, scope "chat", for everyone in this chat) across ' +
        'conversations. source: "stated" only for what the person said themselves, "inferred" for your own ' +
        'conclusion, "tool" for what a tool or a web page said. subject names what the note is about ' +
        '("exam date"): a newer note on the same subject replaces the old one unless the old one is stronger.',
      tier: 'safe',
      effects: true,
      outside: false,
      input: z.object({
        text: z.string().trim().min(1).max(1_000).describe('The fact, in a sentence'),
        subject: z.string().max(100).optional().describe('What it is about, a few words'),
        valid_from: z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'a date, YYYY-MM-DD' })
          .optional()
          .describe('When it became true, as the person said (YYYY-MM-DD); leave out for now'),
        source: z.enum(MEMORY_SOURCES).default('inferred'),
        scope: z.enum(['person', 'chat']).default('person'),
      }),
      precheck: (_args, ctx) => void turnOf(ctx),
      async run({ text, subject, source, scope, valid_from }, ctx) {
        const validFrom = valid_from ? new Date(`${valid_from}T00:00:00Z`) : undefined;
        if (validFrom && Number.isNaN(validFrom.getTime()))
          throw new RefusedBeforeEffect(`${valid_from} is not a date`);
        const outcome = await memory.remember(turnOf(ctx), {
          text,
          source,
          scope,
          ...(subject && { subject }),
          ...(validFrom && { validFrom }),
        });
        return TOLD[outcome.outcome](outcome);
      },
    }),
    defineTool({
      name: 'memory_search',
      description: 'Searches what you remember of the person and this chat; notes come back with their ids.',
      tier: 'safe',
      effects: false,
      // Notes may hold words a page or a tool wrote: fenced as data.
      outside: true,
      input: z.object({ query: z.string().trim().min(1).max(500) }),
      precheck: (_args, ctx) => void turnOf(ctx),
      async run({ query }, ctx) {
        const found = await memory.search(turnOf(ctx), query);
        return found.length === 0 ? 'Nothing remembered matches.' : found.map((n) => `[${n.id}] ${n.text}`).join('\n');
      },
    }),
    defineTool({
      name: 'memory_forget',
      description:
        'Forgets remembered notes for good, by id (one, or a list; shown as [mem_…]); a person approves it. ' +
        'With `query` instead, nothing is forgotten: the matching notes come back with their ids.',
      tier: 'write',
      effects: true,
      outside: false,
      input: z.object({
        id: z.union([NOTE_ID, z.array(NOTE_ID).min(1).max(50)]).optional(),
        query: z.string().trim().min(1).max(500).optional(),
      }),
      async precheck({ id, query }, ctx) {
        const turn = turnOf(ctx);
        if ((id === undefined) === (query === undefined))
          throw new RefusedBeforeEffect('give either `id` (one or a list) or `query`, not both');
        if (query !== undefined) {
          const found = await memory.search(turn, query, 50);
          throw new RefusedBeforeEffect(
            found.length === 0
              ? `nothing remembered matches "${query}"; nothing was forgotten`
              : `nothing was forgotten yet. These notes match: ${listed(found)}. Call memory_forget with the ` +
                  'ids the person means (a person approves it).',
          );
        }
        for (const one of idsOf(id))
          if (!(await memory.find(turn, one)))
            throw new RefusedBeforeEffect(`there is no note ${one} in your memory or this chat's`);
      },
      // Nothing changes; the card's Why line gets each note's words, so the approver sees what goes.
      async resolve(args, ctx) {
        const notes = await Promise.all(idsOf(args.id).map((one) => memory.find(turnOf(ctx), one)));
        const known = notes.filter((n) => n !== undefined);
        return known.length === 0 ? undefined : { args, note: `forgets ${listed(known)}` };
      },
      async run({ id }, ctx) {
        const ids = idsOf(id);
        const forgot = await memory.forgetOn(undefined, turnOf(ctx), ids);
        return forgot === ids.length
          ? `Forgot ${ids.join(', ')}.`
          : `Forgot ${forgot} of ${ids.length}; the others were already forgotten.`;
      },
    }),
  ];
}
