// Watches a fake model for two calls in flight at once. Each call is made to last `delayMs` (the fake's
// hang), and its interval runs from arrival (the fake's `attempts[].at`) to the moment its answer is
// built (the default step is asked only when the fake really replies), so intervals that overlap are
// two calls the model was answering at the same time.
import type { ChatRequestBody, FakeLlm, FakeStep } from '../fakes/llm-server.ts';
import { contentText, defaultStep } from '../fakes/llm-wire.ts';

/** A call's time at the fake model: `text` is the last user message it was asked about. */
export interface ModelCall {
  text: string;
  start: number;
  end: number;
}

/** What {@link watchModelOverlap} reports. */
export interface ModelOverlap {
  /** Calls answered so far, in the order they arrived. */
  calls(): ModelCall[];
  /** Pairs of calls that were in flight at the same time (empty when the model never saw two at once). */
  overlaps(): Array<[ModelCall, ModelCall]>;
}

/**
 * Makes the next `calls` requests to `llm` each take `delayMs` and records when each was in flight.
 * Replies are the fake's default (`echo: <text>`), unless `reply` is given.
 */
export function watchModelOverlap(
  llm: FakeLlm,
  options: { calls: number; delayMs: number; reply?: (body: ChatRequestBody) => FakeStep },
): ModelOverlap {
  const ends = new Map<ChatRequestBody, number>();
  llm.hangNext(options.calls, options.delayMs);
  llm.setDefault((body) => {
    ends.set(body, Date.now());
    return (options.reply ?? defaultStep)(body);
  });
  const calls = (): ModelCall[] =>
    llm.attempts.flatMap((attempt) => {
      const end = ends.get(attempt.body);
      if (end === undefined) return [];
      const user = [...(attempt.body.messages ?? [])].reverse().find((m) => m.role === 'user');
      return [{ text: contentText(user?.content), start: attempt.at, end }];
    });
  return {
    calls,
    overlaps: () => {
      const sorted = calls().sort((a, b) => a.start - b.start);
      const found: Array<[ModelCall, ModelCall]> = [];
      for (let i = 0; i < sorted.length; i++) {
        for (let j = i + 1; j < sorted.length && sorted[j]!.start < sorted[i]!.end; j++)
          found.push([sorted[i]!, sorted[j]!]);
      }
      return found;
    },
  };
}
