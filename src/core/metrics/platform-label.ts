import { isPlatform } from '../surface/index.ts';

/** The `platform` label of a drive's chat: its platform, or `none` for a run with no chat (a task, a schedule). */
export function platformOf(chat: string | undefined): string {
  const prefix = chat?.split(':', 1)[0] ?? '';
  // A task's or a schedule's run has no chat in front (`thread:…`, or none).
  return isPlatform(prefix) ? prefix : 'none';
}
