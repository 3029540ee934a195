import { z } from 'zod';
import { MEMORY_SOURCES } from '../db/index.ts';
import { RefusedBeforeEffect } from '../effects/index.ts';
import { defineTool, type ToolContext } from '../tools/index.ts';
import type { RememberOutcome } from './remember.ts';
import type { Memory } from './service.ts';

type MemoryPort = Pick<Memory, 'remember' | 'find' | 'forget'>;

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
  forgotten: () =>
    'Not stored: the person asked to forget this. Only their saying it again (source "stated") stores it.',
};

/**
 * `remember` and `forget`, the model's way into memory.
 *
 * - `remember` (safe, effects): adds a note to the memory of the person who asked (or the chat's shared
 *   notes). No approval: it writes only to that person's own memory in Kazma's database, changes nothing
 *   outside, overwrites nothing a stronger source said (the provenance ladder), and can be forgotten; a
 *   card for every "remember that…" would make memory unusable. What it stores is shown to the model
 *   fenced, as data.
 * - `forget` (write): forgetting cannot be undone — the words are erased and stay forgotten — so a person
 *   approves it, and a page or a file the model read cannot make it erase someone's memory. A note that is
 *   not the asker's is refused before any card.
 */
export function memoryTools(memory: MemoryPort) {
  return [
    defineTool({
      name: 'remember',
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
        source: z.enum(MEMORY_SOURCES).default('inferred'),
        scope: z.enum(['person', 'chat']).default('person'),
      }),
      precheck: (_args, ctx) => void turnOf(ctx),
      async run({ text, subject, source, scope }, ctx) {
        const outcome = await memory.remember(turnOf(ctx), { text, source, scope, ...(subject && { subject }) });
        return TOLD[outcome.outcome](outcome);
      },
    }),
    defineTool({
      name: 'forget',
      description:
        'Forgets one remembered note by its id (shown as [mem_…] in recalled notes), for good. A person approves it.',
      tier: 'write',
      effects: true,
      outside: false,
      input: z.object({ id: z.string().regex(/^mem_[0-9a-f]+$/, { message: 'a note id, e.g. mem_1a2b3c' }) }),
      async precheck({ id }, ctx) {
        if (!(await memory.find(turnOf(ctx), id)))
          throw new RefusedBeforeEffect(`there is no note ${id} in your memory or this chat's`);
      },
      async run({ id }, ctx) {
        return (await memory.forget(turnOf(ctx), id)) ? `Forgot ${id}.` : `${id} was already forgotten.`;
      },
    }),
  ];
}
