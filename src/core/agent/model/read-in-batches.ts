// How a streamed answer's bytes are read (streamed-answer.ts): in batches, each read waking the process once
// for all the events that came since the last one.
import type { Readable } from 'node:stream';

/**
 * Reads `content` to its end, handing each piece to `take`. Until `take` says the answer began (its first
 * words, or a tool call), each piece is read as it comes: nothing holds the first words back. After, a
 * piece is read at once after a quiet spell, else with whatever else came, an interval after the last read:
 * `everyMs`, or twice as long as the answer has been coming if that is shorter — an answer that comes in a
 * burst (a fast model, a short answer) is read as fast as it comes, not held `everyMs` at its end.
 * For the bytes to wait in the kernel rather than wake the process to be buffered, `content` holds none
 * ahead (a highWaterMark of 0, down to the socket: model-fetch.ts). So a read takes what its stream holds,
 * and only then starts the socket reading what waits in the kernel, which comes in the same turn of the
 * event loop: that is part of the read too (taken until setImmediate), not held an interval more — the
 * answer's words were a read behind, and its end was read one interval late. `reader` is handed a way to
 * read now, sooner than the next read would come (a draft falling due asks for its words). Rejects with the
 * stream's error, or `take`'s.
 */
export function readInBatches(
  content: Readable,
  options: { everyMs: number; take: (bytes: Buffer) => boolean; reader?: (readNow: () => void) => void },
): Promise<void> {
  const { everyMs, take } = options;
  return new Promise((resolve, reject) => {
    let lastRead = Number.NEGATIVE_INFINITY;
    let begunAt: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    /** A read is under way until the end of this turn of the event loop: what comes meanwhile is in it. */
    let reading = false;
    let settled = false;
    const settle = (failure?: unknown) => {
      settled = true;
      clearTimeout(timer);
      content.off('readable', readable);
      if (failure === undefined) resolve();
      else reject(failure);
    };
    const read = () => {
      timer = undefined;
      let begun = false;
      try {
        for (let bytes = content.read() as Buffer | null; bytes !== null; bytes = content.read() as Buffer | null)
          begun = take(bytes);
      } catch (failure) {
        settle(failure);
      }
      if (begun) {
        lastRead = performance.now();
        begunAt ??= lastRead;
      }
      if (!reading) {
        reading = true;
        setImmediate(() => {
          reading = false;
        });
      }
    };
    const readable = () => {
      if (timer) return;
      if (reading) return read();
      const now = performance.now();
      const interval = begunAt === undefined ? 0 : Math.min(everyMs, 2 * (now - begunAt));
      const wait = lastRead + interval - now;
      if (wait <= 0) read();
      else timer = setTimeout(read, wait);
    };
    options.reader?.(() => {
      if (settled) return;
      clearTimeout(timer);
      read();
    });
    content.on('readable', readable);
    content.once('end', () => settle());
    content.once('error', (failure) => settle(failure));
  });
}
