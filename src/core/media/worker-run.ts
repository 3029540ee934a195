// Runs a worker-thread file on one job with a deadline and a memory limit, as web/extract.ts runs the HTML
// reader: past either, the worker is ended and the caller gets a sentence saying which.
import { Worker } from 'node:worker_threads';

/** What one job may take. */
export interface WorkerLimits {
  timeoutMs: number;
  /**
   * The worker's V8 heap (old generation), in MB; and how far the process's resident memory may grow while
   * it runs — a parser's buffers (a PDF stream inflating to gigabytes) live outside the heap V8 limits.
   */
  memoryMb: number;
}

/** How often the process's resident memory is looked at while a worker runs. */
const WATCH_MS = 50;

/**
 * The message `file` posts for `data`; rejects with an Error whose message says what went wrong ("it took
 * over 20 s", "it needed over 256 MB", the worker's own error). `transfer`: buffers moved, not copied.
 */
export function runWorker<T>(
  file: string,
  data: unknown,
  limits: WorkerLimits,
  transfer: ArrayBuffer[] = [],
): Promise<T> {
  const worker = new Worker(file, {
    workerData: data,
    transferList: transfer,
    resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
    stdout: true,
    stderr: true,
  });
  // Whatever a parser prints (pdf.js warns about odd files) is not ours to show: drained.
  worker.stdout.resume();
  worker.stderr.resume();
  const start = process.memoryUsage.rss();
  let watch: NodeJS.Timeout | undefined;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`it took over ${limits.timeoutMs / 1000} s`));
      void worker.terminate();
    }, limits.timeoutMs);
    // Approximate (the whole process counts), and on the side of stopping: a document is cheap to refuse.
    watch = setInterval(() => {
      if (process.memoryUsage.rss() - start <= limits.memoryMb * 1024 ** 2) return;
      reject(new Error(`it needed over ${limits.memoryMb} MB`));
      void worker.terminate();
    }, WATCH_MS);
    worker.once('message', (result: T) => resolve(result));
    worker.once('error', (error: Error & { code?: string }) =>
      reject(
        new Error(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `it needed over ${limits.memoryMb} MB` : error.message),
      ),
    );
    worker.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the reader stopped (exit code ${code})`));
    });
  }).finally(() => {
    clearInterval(watch);
    void worker.terminate();
  });
}
