// Where Kazma keeps its data cannot be used: the start says which key and why in one line, and exits —
// no stack, no start that spins (a recursive mkdir under /proc never returns), no driver wrapper text
// ("Failed query: select 1") in place of the cause, and no password printed.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KAZMA_BIN, runKazma, writeConfig } from '../helpers/kazma-process.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** Starts Kazma with `yaml` and `env`; its last stderr line, its exit code, and whether a stack was printed. */
async function start(yaml: string, env: Record<string, string | undefined> = {}) {
  const { path } = writeConfig(yaml);
  const { code, stderr } = await runKazma(['start', '--config', path], {
    env: { DATABASE_URL: undefined, REDIS_URL: undefined, ...env },
  });
  return { code, line: stderr.trim().split('\n').at(-1) ?? '', stack: /\n\s+at /.test(stderr) };
}

/**
 * A PostgreSQL server that refuses every login with `sqlstate` (the server's ErrorResponse, as a real server
 * sends it after the startup message), so a refusal the machine's trusting server never gives can be seen.
 */
async function refusingServer(sqlstate: string, message: string): Promise<number> {
  const server = createServer((socket) => {
    socket.once('data', () => {
      const fields = Buffer.from(`SFATAL\0VFATAL\0C${sqlstate}\0M${message}\0\0`);
      const length = Buffer.alloc(4);
      length.writeInt32BE(fields.length + 4);
      socket.end(Buffer.concat([Buffer.from('E'), length, fields]));
    });
  });
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

describe('data_dir that cannot hold data', () => {
  const file = join(writeConfig('').dir, 'a-file');
  writeFileSync(file, 'not a directory');
  it.each([
    ['a file', file, `${file} is a file, not a directory`],
    ['a folder under a file', join(file, 'data'), `${file} is a file, not a directory`],
    ['under /proc', '/proc/kazma-data', "/proc is on the kernel's proc file system, which stores nothing"],
  ])(
    '%s: names data_dir and why, and exits',
    async (_, dataDir, why) => {
      const { code, line, stack } = await start(`http: { port: 0 }\ndata_dir: ${dataDir}\n`);
      expect(line).toBe(
        `kazma: data_dir (${dataDir}) cannot hold Kazma's data: ${why}. Set data_dir in kazma.yaml to a writable ` +
          'directory.',
      );
      expect(stack).toBe(false);
      expect(code).toBe(1);
    },
    60_000,
  );
});

describe('data_dir on a read-only mount', () => {
  // Tests run as root, whom permission bits do not stop: bubblewrap mounts the folder read-only for the one
  // process, as a read-only volume or disk would be (EROFS).
  const { dir, path } = writeConfig('');
  mkdirSync(join(dir, 'data'));
  /** `kazma start` with data_dir, the folder holding it mounted read-only. */
  const startReadOnly = (dataDir: string) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      writeFileSync(path, `http: { port: 0 }\ndata_dir: ${dataDir}\n`);
      const env = { ...process.env };
      delete env.DATABASE_URL;
      delete env.REDIS_URL;
      const bwrap = ['--bind', '/', '/', '--ro-bind', dir, dir, '--dev', '/dev', '--proc', '/proc'];
      const command = [...bwrap, '--', process.execPath, KAZMA_BIN, 'start', '--config', path];
      const child = execFile('bwrap', command, { env, timeout: 60_000 }, (_error, _out, stderr) =>
        resolve({ code: child.exitCode, stderr }),
      );
    });
  it.each([
    ['an existing folder', join(dir, 'data'), `cannot write in ${join(dir, 'data')} (EROFS)`],
    ['a folder to create', join(dir, 'new'), `cannot create ${join(dir, 'new')} (EROFS)`],
  ])(
    '%s: names data_dir and the read-only file system, and exits',
    async (_, dataDir, why) => {
      const { code, stderr } = await startReadOnly(dataDir);
      expect(stderr.trim().split('\n').at(-1)).toBe(
        `kazma: data_dir (${dataDir}) cannot hold Kazma's data: ${why}. Set data_dir in kazma.yaml to a writable ` +
          'directory.',
      );
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(code).toBe(1);
    },
    90_000,
  );
});

it('kazma doctor, which opens the embedded database itself, names such a data_dir too instead of hanging', async () => {
  const { path } = writeConfig('data_dir: /proc/kazma-data\n');
  const { code, stdout } = await runKazma(['doctor', '--config', path], {
    env: { DATABASE_URL: undefined, REDIS_URL: undefined },
  });
  expect(stdout).toContain(
    "data_dir (/proc/kazma-data) cannot hold Kazma's data: /proc is on the kernel's proc file system, which stores " +
      'nothing',
  );
  expect(code).toBe(1);
}, 90_000);

describe('database.url that does not lead to a database', () => {
  it('a database that does not exist is named, with how to create it', async () => {
    const { code, line } = await start('http: { port: 0 }\n', {
      DATABASE_URL: 'postgres://postgres:hunter2@127.0.0.1:5432/kazma_missing_db',
    });
    expect(line).toBe(
      'kazma: PostgreSQL at postgres://postgres:•••@127.0.0.1:5432/kazma_missing_db: database "kazma_missing_db" ' +
        'does not exist: create it (createdb kazma_missing_db) or name another in database.url.',
    );
    expect(code).toBe(1);
  }, 60_000);

  it('a refused password is named as such, and the password is not printed', async () => {
    const port = await refusingServer('28P01', 'password authentication failed for user "kazma"');
    const { code, line } = await start('http: { port: 0 }\n', {
      DATABASE_URL: `postgres://kazma:hunter2@127.0.0.1:${port}/kazma`,
    });
    expect(line).toBe(
      `kazma: PostgreSQL at postgres://kazma:•••@127.0.0.1:${port}/kazma: the password for user "kazma" was ` +
        'refused: fix it in database.url.',
    );
    expect(line).not.toContain('hunter2');
    expect(code).toBe(1);
  }, 60_000);

  it('nothing listening, and an unknown host, each say which', async () => {
    const closed = await refusingServer('28P01', 'unused');
    await new Promise((resolve) => servers.pop()!.close(resolve)); // a port known to be free now
    const refused = await start('http: { port: 0 }\n', { DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/x` });
    expect(refused.line).toBe(
      `kazma: PostgreSQL at postgres://postgres@127.0.0.1:${closed}/x: nothing listens at 127.0.0.1:${closed}: ` +
        'start PostgreSQL, or fix the host and port in database.url.',
    );
    const unknown = await start('http: { port: 0 }\n', {
      DATABASE_URL: 'postgres://postgres@kazma-no-such-host.invalid/x',
    });
    expect(unknown.line).toBe(
      'kazma: PostgreSQL at postgres://postgres@kazma-no-such-host.invalid/x: host "kazma-no-such-host.invalid" is ' +
        'not known: fix the host in database.url.',
    );
    expect(refused.code).toBe(1);
    expect(unknown.code).toBe(1);
  }, 90_000);

  it("a URL that is not PostgreSQL's is refused when the file is read, naming the key (exit 2)", async () => {
    const { code, line } = await start('http: { port: 0 }\ndatabase: { url: "mysql://root@127.0.0.1/kazma" }\n');
    expect(line).toBe('  database.url: expected a PostgreSQL URL (postgres://user:pass@host/db) or nothing');
    expect(code).toBe(2);
  }, 60_000);
});
