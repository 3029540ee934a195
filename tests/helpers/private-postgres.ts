// A PostgreSQL server of the test's own (the machine's binaries, a cluster in a temporary directory, a free
// port), for a test that harms its server for everyone on it: a tablespace whose disk is full makes every
// checkpoint of that server fail while it is full (the dirty pages it holds cannot be written), and with
// them every other test's CREATE or DROP DATABASE, which ask for one (tests/foundation/disk-full.test.ts).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** The superuser's URL (trust authentication), database `postgres`. */
  readonly adminUrl: string;
  /** Stops the server at once and removes its cluster. */
  stop(): Promise<void>;
}

/** The newest installed PostgreSQL's binaries (Debian: /usr/lib/postgresql/<major>/bin). */
function binaries(): string {
  const majors = readdirSync('/usr/lib/postgresql')
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  if (!majors[0])
    throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (Debian package postgresql)');
  return join('/usr/lib/postgresql', majors[0], 'bin');
}

/** As the `postgres` user: the server refuses to run as root. */
const asPostgres = (bin: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', bin, ...args]);

/** Creates a cluster, starts it on a free port of 127.0.0.1, and waits until it accepts connections. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binaries();
  const dir = mkdtempSync(join(tmpdir(), 'kazma-postgres-'));
  const data = join(dir, 'data');
  await run('chown', ['postgres:postgres', dir]);
  await asPostgres(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  // `-w`: pg_ctl returns once the server accepts connections. The socket goes in the cluster's directory.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off`;
  await asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
