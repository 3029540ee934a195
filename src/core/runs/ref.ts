// A run is work on one conversation thread: a chat turn, or (later) a background task with no chat.
// The runner takes a RunRef instead of a chat, so where a thread's words go and which queue keeps its
// turns in order are data, not the assumption that every thread belongs to a chat.
import type { ChatRef } from '../surface/index.ts';

/** One thread's run: where it came from and where its replies go. */
export interface RunRef {
  threadId: string;
  /** The chat the work came from; its questions are asked there. None for chatless (background) work. */
  origin?: ChatRef;
  /** Where the run's replies and notices are delivered (the origin for a chat turn; may be empty). */
  deliverTo: readonly ChatRef[];
}

/** A chat's turn on the chat's current thread. */
export function chatRun(chat: ChatRef, threadId: string): RunRef {
  return { threadId, origin: chat, deliverTo: [chat] };
}

/** The run a question was asked in (a gate or any record with a thread and maybe a chat). */
export function runOf(source: { threadId: string; chat?: ChatRef | undefined }): RunRef {
  return source.chat ? chatRun(source.chat, source.threadId) : { threadId: source.threadId, deliverTo: [] };
}

/**
 * The in-process queue a run's work waits in: its chat's (in order with the chat's turns), else its
 * thread's. Across processes the thread lease (agent/thread-lease.ts) keeps one runner per thread.
 */
export function runQueue(source: { threadId: string; chat?: ChatRef | undefined }): string {
  return source.chat ?? `thread:${source.threadId}`;
}
