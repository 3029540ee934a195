// Recalled notes as the model is shown them: fenced as data (a note may hold words a page or a tool
// wrote), each with its id (for `memory_forget`), the day it was written, who said it, since when it is
// true when that was stated, and the stronger note it disagrees with: a conflict is shown, not resolved.
import type { MemorySource } from '../db/index.ts';
import { fenceOutside } from '../tools/index.ts';
import type { MemoryNote } from './store.ts';

const SAID_BY: Record<MemorySource, string> = {
  stated: 'the person said',
  inferred: 'inferred',
  tool: 'from a tool or page',
};

/** The block added to the system prompt for a turn's recalled notes. */
export function recalledNotes(notes: readonly MemoryNote[], zone: string): string {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const lines = notes.map((n) => {
    const since = n.validFrom ? ` (true since ${day.format(n.validFrom)})` : '';
    const disagrees = n.conflictsWith ? ` (disagrees with ${n.conflictsWith}, a stronger source)` : '';
    return `- [${n.id}] ${day.format(n.createdAt)}, ${SAID_BY[n.source]}${since}${disagrees}: ${n.text}`;
  });
  return (
    'Recalled notes from your memory of this person and chat, found for this message. Use them only where ' +
    'they bear on it; a newer message from the person overrides them.\n' +
    fenceOutside(lines.join('\n'), 'memory')
  );
}
