// What the schedules service is asked to record.
import type { Actor, ChatRef } from '../surface/index.ts';

/** A reminder to record: the words with its time, and where an anchored date came from. */
export interface ReminderInput {
  words: string;
  chat: ChatRef;
  requester: Actor;
  from?: string;
}

export interface CronInput {
  pattern: string;
  prompt: string;
  chat: ChatRef;
  requester: Actor;
}
