/**
 * Rejects with "no answer within N ms" when `promise` has not settled in time (the promise itself keeps
 * running). Used where a dependency that hangs must count as down: readiness probes, Redis pings.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
