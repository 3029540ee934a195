// A bug nothing in Kazma caught (a rejected promise nobody handles, an exception thrown from a timer)
// must not end the process the way Node's default does — a stack on stderr, out of the JSON log, with
// leases and connections dropped mid-flight — but be logged at fatal, followed by the same graceful stop
// as SIGTERM, and exit 1 so a supervisor restarts Kazma.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedPgliteDataDir } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess, writeConfig } from '../helpers/kazma-process.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const FAIL_ON_SIGNAL = pathToFileURL(join(REPO_ROOT, 'tests/helpers/fail-on-signal.mjs')).href;

const running: KazmaProcess[] = [];
afterEach(() => {
  for (const proc of running.splice(0)) proc.kill('SIGKILL');
});

describe('an error nothing caught, in a running kazma start', () => {
  it.each(['rejection', 'exception'] as const)(
    'an unhandled %s is logged at fatal, then Kazma stops gracefully and exits 1',
    async (failure) => {
      const { dir, path } = writeConfig('http: { port: 0 }\nshutdown: { timeout: 5000 }\n');
      await seedPgliteDataDir(join(dir, 'kazma-data'));
      const kazma = new KazmaProcess(['start', '--config', path], {
        env: {
          DATABASE_URL: undefined,
          REDIS_URL: undefined,
          NODE_OPTIONS: `--import=${FAIL_ON_SIGNAL}`,
          KAZMA_TEST_FAILURE: failure,
        },
      });
      running.push(kazma);
      const port = await kazma.port();
      // Ready once the database, Redis and the jobs' restore answer: a loaded machine takes a moment after listening.
      await eventually(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status,
        (status) => status === 200,
        'Kazma to be ready',
        { timeoutMs: 60_000 },
      );

      kazma.kill('SIGUSR2');
      const { code, signal } = await kazma.exited;
      expect({ code, signal }).toEqual({ code: 1, signal: null });
      const logs = kazma.logs();
      const fatal = logs.findIndex((l) => l.level === 60);
      expect(fatal, `no fatal log line; stderr:\n${kazma.stderr}`).toBeGreaterThanOrEqual(0);
      expect(logs[fatal]).toMatchObject({
        origin: failure === 'rejection' ? 'unhandledRejection' : 'uncaughtException',
        err: { message: 'an unexpected failure made by the test' },
      });
      expect(String(logs[fatal]!.msg)).toContain('stopping gracefully');
      // The graceful stop ran after it, to its end.
      expect(logs.findIndex((l) => l.msg === 'stopped')).toBeGreaterThan(fatal);
    },
  );
});
