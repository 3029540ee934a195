import { Hono } from 'hono';
import { withTimeout } from '../../core/with-timeout.ts';

/** How long /readyz waits for one dependency before calling it down. */
const CHECK_TIMEOUT_MS = 2_000;

/** A named dependency check: resolves when the dependency answers; rejects with plain words ("unreachable at …"). */
export type ReadinessCheck = () => Promise<void>;

/**
 * `/healthz` answers while the process lives; `/readyz` asks every dependency (database, redis, …) and
 * answers 503 naming each one that is down, so an orchestrator or a human sees what to fix.
 */
export function healthRoutes(checks: Record<string, ReadinessCheck>): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          // A dependency that hangs must not hang the probe: it counts as down.
          await withTimeout(check(), CHECK_TIMEOUT_MS);
          return [name, { ok: true }] as const;
        } catch (error) {
          return [name, { ok: false, error: (error as Error).message }] as const;
        }
      }),
    );
    const failed = results.filter(([, r]) => !r.ok);
    const down = failed.map(([name]) => name);
    // One line a person reads: "redis unreachable at 127.0.0.1:6379".
    const message = failed.map(([name, r]) => `${name} ${'error' in r ? r.error : 'down'}`).join('; ');
    const body = {
      status: down.length === 0 ? 'ready' : 'unavailable',
      down,
      ...(message && { message }),
      checks: Object.fromEntries(results),
    };
    return c.json(body, down.length === 0 ? 200 : 503);
  });
  return app;
}
