// The deployment files (Dockerfile, deploy/compose.yaml, deploy/kazma.yaml, deploy/systemd/) name only what
// exists: `kazma` subcommands that run, configuration keys the schema knows, environment variables Kazma
// reads. Images cannot be built on this project's CI machines (no Docker), so the files are read and
// checked here rather than run; the systemd units go through `systemd-analyze verify` where it is installed.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSchema, parseConfig } from '../../src/core/config/index.ts';
import { runKazma } from '../helpers/kazma-process.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

/** The words of every `kazma` subcommand, read from the CLI's table (importing it would run the CLI). */
function subcommandNames(): string[] {
  const table = read('src/cli/index.ts').match(/export const subcommands[^{]*\{([\s\S]*?)\n\};/)?.[1] ?? '';
  return [...table.matchAll(/^\s+'?([a-z][a-z -]*?)'?: async \(\) =>/gm)].map((m) => m[1]!);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Environment variables src/ reads by name (`env.DATABASE_URL`, `env['X']`). */
function namesReadBySource(): Set<string> {
  const names = new Set<string>();
  for (const path of sourceFiles('src'))
    for (const [, a, b] of read(path).matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)\b|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g))
      names.add((a ?? b)!);
  return names;
}

/** `${NAME}` and `${NAME:-default}` placeholders of a kazma.yaml: the variables it reads. */
const placeholders = (yaml: string) => new Set([...yaml.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));

/** The names an `environment:` sets that Kazma reads neither in its source nor through its kazma.yaml. */
function unreadNames(environment: Record<string, unknown>, names: Set<string>): string[] {
  return Object.keys(environment).filter((name) => !names.has(name));
}

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: unknown };
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(read('deploy/compose.yaml'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const kazmaServices = Object.entries(compose.services).filter(([, s]) => s.image === 'kazma:local');
const deployYaml = read('deploy/kazma.yaml');

/** The Dockerfile's instructions, continuation lines joined, comments dropped; `stage` counts FROMs. */
function dockerfile(): Array<{ stage: number; op: string; args: string }> {
  const lines = read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() && !line.trimStart().startsWith('#'));
  let stage = -1;
  return lines.map((line) => {
    const [, op, args] = line.trim().match(/^(\w+)\s+(.*)$/)!;
    if (op!.toUpperCase() === 'FROM') stage++;
    return { stage, op: op!.toUpperCase(), args: args!.trim() };
  });
}
const instructions = dockerfile();
const lastStage = Math.max(...instructions.map((i) => i.stage));
const one = (op: string) => {
  const found = instructions.filter((i) => i.op === op);
  expect(found, op).toHaveLength(1);
  return found[0]!.args;
};

describe('the Dockerfile', () => {
  it('builds dist/ in one node:20-slim stage and runs it from another, as a user of its own', () => {
    const froms = instructions.filter((i) => i.op === 'FROM').map((i) => i.args);
    expect(froms).toEqual(['node:20-slim AS build', 'node:20-slim AS runtime']);
    expect(JSON.parse(read('package.json')).engines.node).toBe('>=20.18.1'); // node:20-slim is the newest 20.x
    const runs = (stage: number) => instructions.filter((i) => i.stage === stage && i.op === 'RUN').map((i) => i.args);
    expect(runs(0).join('\n')).toContain('npm run build');
    expect(runs(lastStage).join('\n')).toMatch(/npm ci --omit=dev/);
    expect(runs(lastStage).join('\n')).toMatch(/apt-get install [^\n]*\bbubblewrap\b/);
    expect(instructions).toContainEqual({ stage: lastStage, op: 'COPY', args: '--from=build /app/dist ./dist' });
    const user = one('USER');
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(runs(lastStage).join('\n')).toContain(`useradd --system --gid ${user}`);
  });

  it('copies only what exists and what .dockerignore lets through', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    const sources = instructions
      .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(sources).toContain('deploy/kazma.yaml');
    for (const source of sources) {
      expect(existsSync(join(REPO_ROOT, source)), source).toBe(true);
      expect(
        ignored.filter((pattern) => source === pattern || source.startsWith(`${pattern}/`)),
        source,
      ).toEqual([]);
    }
  });

  it('runs `kazma start`, the command the README documents, with kazma.yaml from deploy/', () => {
    const command = [...JSON.parse(one('ENTRYPOINT')), ...JSON.parse(one('CMD'))] as string[];
    expect(command).toEqual(['tini', '--', 'kazma', 'start']);
    expect(read('README.md')).toContain('`kazma start`');
    expect(instructions).toContainEqual({ stage: lastStage, op: 'ENV', args: 'KAZMA_CONFIG=/etc/kazma/kazma.yaml' });
    expect(instructions).toContainEqual({
      stage: lastStage,
      op: 'COPY',
      args: 'deploy/kazma.yaml /etc/kazma/kazma.yaml',
    });
  });

  it('checks /healthz on the port deploy/kazma.yaml and the schema give http.port, and keeps data_dir in the volume', () => {
    const port = configSchema.parse({}).http.port;
    expect(port).toBe(8787);
    expect(one('HEALTHCHECK')).toContain(`http://127.0.0.1:${port}/healthz`);
    expect(one('EXPOSE')).toBe(String(port));
    const config = loadDeployConfig();
    expect(config.http.port).toBe(port);
    const volume = JSON.parse(one('VOLUME')) as string[];
    expect(volume).toEqual(['/var/lib/kazma']);
    expect(config.data_dir.startsWith('/var/lib/kazma/')).toBe(true);
    expect(config.tools.workspace.startsWith('/var/lib/kazma/')).toBe(true);
  });
});

/**
 * A compose `environment:` value as compose hands it over with nothing set on the host: `${X:-default}` is the
 * default, `${X:?message}` (compose refuses to start without it) a stand-in, `${X}` empty.
 */
const interpolated = (value: string) =>
  value.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(?:(:-)([^}]*)|(:\?)[^}]*)?\}/g, (_all, _dash, fallback, required) =>
    required ? 'set-on-the-host' : (fallback ?? ''),
  );

/** deploy/kazma.yaml as the compose services load it (strict schema: an unknown key fails). */
function loadDeployConfig(environment: Record<string, string> = {}) {
  const env = Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, interpolated(value)]));
  return parseConfig(deployYaml, {
    env: { HOME: '/home/kazma', ...env },
    baseDir: '/etc/kazma',
    path: '/etc/kazma/kazma.yaml',
  }).config;
}

describe('deploy/compose.yaml', () => {
  it('runs PostgreSQL, Redis, one `kazma start` and two `kazma worker`, each service with a healthcheck', () => {
    expect(compose.services.postgres?.image).toMatch(/^postgres:\d+/);
    expect(compose.services.redis?.image).toMatch(/^redis:\d+/);
    const commands = kazmaServices.map(([, s]) => s.command?.join(' ')).sort();
    expect(commands).toEqual(['start', 'worker', 'worker']);
    // PostgreSQL and Redis declare theirs; the Kazma services have the image's HEALTHCHECK on /healthz.
    for (const name of ['postgres', 'redis']) expect(compose.services[name]!.healthcheck?.test, name).toBeTruthy();
    expect(one('HEALTHCHECK')).toContain('/healthz');
    for (const [name, service] of kazmaServices) {
      expect(service.depends_on, name).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
    }
  });

  it('every command it runs is a `kazma` subcommand that answers --help', async () => {
    const known = subcommandNames();
    expect(known).toEqual(expect.arrayContaining(['start', 'worker', 'config check']));
    for (const [name, service] of kazmaServices) {
      const command = service.command!;
      expect(known, name).toContain(command.join(' '));
      const { code, stdout } = await runKazma([...command, '--help']);
      expect(code, `kazma ${command.join(' ')} --help`).toBe(0);
      expect(stdout).toContain(`Usage: kazma ${command.join(' ')}`);
    }
  });

  it('sets only environment variables Kazma reads, and mounts deploy/kazma.yaml where KAZMA_CONFIG points', () => {
    const readNames = new Set([...namesReadBySource(), ...placeholders(deployYaml)]);
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'KAZMA_CONFIG', 'KAZMA_VAULT_KEY'])
      expect(readNames).toContain(name);
    for (const [name, service] of kazmaServices) {
      expect(unreadNames(service.environment ?? {}, readNames), name).toEqual([]);
      const config = service.environment!.KAZMA_CONFIG;
      expect(service.volumes, name).toContain(`./kazma.yaml:${config}:ro`);
      // data_dir is in the image's volume, a named one per process; the workspace a volume all of them share.
      const loaded = loadDeployConfig(service.environment);
      const targets = service.volumes!.map((v) => v.split(':')[1]);
      expect(targets, name).toEqual(expect.arrayContaining(['/var/lib/kazma', loaded.tools.workspace]));
      expect(loaded.data_dir.startsWith('/var/lib/kazma/'), name).toBe(true);
      expect(service.volumes, name).toContain(`workspace:${loaded.tools.workspace}`);
      expect(loaded.database.url, name).toBe('postgres://kazma:set-on-the-host@postgres:5432/kazma');
      expect(loaded.redis.url, name).toBe('redis://redis:6379');
    }
    const dataVolumes = kazmaServices.map(([, s]) => s.volumes!.find((v) => v.endsWith(':/var/lib/kazma')));
    expect(new Set(dataVolumes).size).toBe(kazmaServices.length);
    for (const volume of kazmaServices.flatMap(([, s]) => s.volumes!)) {
      const source = volume.split(':')[0]!;
      if (!source.startsWith('.')) expect(compose.volumes, source).toHaveProperty(source);
    }
  });

  it('negative control: a name Kazma does not read, or a config key the schema lacks, is found', () => {
    const readNames = new Set([...namesReadBySource(), ...placeholders(deployYaml)]);
    expect(unreadNames({ DATABASE_URL: 'x', KAZMA_DATABSE_URL: 'y' }, readNames)).toEqual(['KAZMA_DATABSE_URL']);
    expect(() =>
      parseConfig(`${deployYaml}\njobs: { concurency: { swarm: 0 } }\n`, {
        env: {},
        baseDir: '/etc/kazma',
        path: '/etc/kazma/kazma.yaml',
      }),
    ).toThrow(/concurency/);
  });
});

/** A unit file's sections and keys (systemd's INI: `[Section]`, `Key=value`, `#` comments). */
function unitSections(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | undefined;
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = line.match(/^\[(.+)\]$/);
    if (header) {
      current = sections[header[1]!] = {};
      continue;
    }
    const [, key, value] = line.match(/^([A-Za-z]+)=(.*)$/) ?? [];
    expect(current && key, `a line outside a section, or not Key=value: ${line}`).toBeTruthy();
    (current![key!] ??= []).push(value!);
  }
  return sections;
}

const UNITS = { 'kazma.service': 'start', 'kazma-worker@.service': 'worker' } as const;

describe('deploy/systemd', () => {
  it.each(Object.entries(UNITS))('%s runs `kazma %s` as a user of its own, restarted on failure', (file, command) => {
    const unit = unitSections(read(`deploy/systemd/${file}`));
    expect(Object.keys(unit)).toEqual(['Unit', 'Service', 'Install']);
    const service = unit.Service!;
    expect(service.Restart).toEqual(['on-failure']);
    expect(service.User).toEqual(['kazma']);
    expect(service.WorkingDirectory).toEqual(['/var/lib/kazma']);
    expect(service.EnvironmentFile).toEqual(['/etc/kazma/kazma.env']);
    expect(service.ExecStart).toHaveLength(1);
    const [node, script, ...args] = service.ExecStart![0]!.split(/\s+/);
    expect(node).toMatch(/^\/.*\/node$/);
    expect(script).toMatch(/\/bin\/kazma\.js$/);
    expect(args).toEqual([command]);
    expect(subcommandNames()).toContain(command);
    expect(unit.Install!.WantedBy).toEqual(['multi-user.target']);
  });

  const scratch = mkdtempSync(join(tmpdir(), 'kazma-units-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** `systemd-analyze verify` of unit files: its exit code and the lines it printed about them. */
  async function verify(paths: string[]): Promise<{ code: number; lines: string[] }> {
    const result = await promisify(execFile)('systemd-analyze', ['verify', ...paths]).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code ?? 1, stderr: error.stderr ?? '' }),
    );
    // It says nothing of a unit it finds sound; what it says of other units (the host's) is not ours.
    const lines = result.stderr.split('\n').filter((line) => paths.some((path) => line.includes(path)));
    return { code: result.code, lines };
  }

  const hasAnalyze = (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, 'systemd-analyze')));

  /** A unit copied into the scratch folder, with this machine's node in ExecStart (verify checks it exists). */
  function copyUnit(from: string, to: string): string {
    const path = join(scratch, to);
    writeFileSync(path, read(from).replace('/usr/bin/node', process.execPath));
    return path;
  }

  it('the units pass `systemd-analyze verify` (where it is installed; elsewhere the checks above stand alone)', async () => {
    if (!hasAnalyze) {
      expect(hasAnalyze, 'systemd-analyze is not installed here: only the key checks above ran').toBe(false);
      return;
    }
    // A template is verified as an instance of it.
    const start = copyUnit('deploy/systemd/kazma.service', 'kazma.service');
    const worker = copyUnit('deploy/systemd/kazma-worker@.service', 'kazma-worker@1.service');
    expect(await verify([start, worker])).toEqual({ code: 0, lines: [] });
  });

  it('negative control: `systemd-analyze verify` names a bad key and a bad Restart= (where installed)', async () => {
    if (!hasAnalyze) {
      expect(hasAnalyze, 'systemd-analyze is not installed here').toBe(false);
      return;
    }
    const bad = copyUnit('deploy/systemd/kazma.service', 'bad.service');
    const text = readFileSync(bad, 'utf8')
      .replace('Restart=on-failure', 'Restart=sometimes')
      .replace('RestartSec=5s', 'RestartSec=5s\nRestartEvery=5s');
    writeFileSync(bad, text);
    const { lines } = await verify([bad]);
    expect(lines.join('\n')).toMatch(/sometimes/);
    expect(lines.join('\n')).toMatch(/RestartEvery/);
  });
});
