// An Agent Skill's install (git clone, npm pack, tar) runs inside the shell's bubblewrap sandbox: a
// hostile source cannot read what lies outside the install's scratch folder — Kazma's data_dir, HOME,
// kazma.yaml — and nothing it ships runs on the host. Two hostile sources: a repository whose `.git` is a
// file pointing at a repository in data_dir (git follows it and clones that one), and a package manager
// that does what a package's script would (here a stand-in `npm` first on PATH: whatever npm does, it does
// in there). Each runs again with `tools.shell.sandbox: off` as the negative control, which reaches the
// secret. Where bubblewrap cannot run, an install is refused, naming the fix, and nothing is spawned.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { installAgentSkill } from '../../src/core/skills/agent/install.ts';
import { createAgentSkills } from '../../src/core/skills/agent/module.ts';
import type { ContainedSettings } from '../../src/core/tools/index.ts';
import { SECRET, skillsRoot } from './skill-folders.ts';

const MARKER = 'data-dir-marker-5d1e0c';
const root = skillsRoot();
// Outside /tmp, so the sandbox's private /tmp is not what hides them; readable by anyone, so the sandbox's
// user (nobody, when the tests run as root) is not what keeps them out either: only what is mounted is.
const outside = mkdtempSync('/var/tmp/kazma-install-outside-');
const dataDir = join(outside, 'data');
const home = join(outside, 'home');
const hostMarker = join(outside, 'ran-on-host');
const installs = join(root, 'installs');
const env = { PATH: process.env.PATH, HOME: home };

/** Every file's text under `dir`, for a search for the marker. */
function allText(dir: string): string {
  if (!existsSync(dir)) return '';
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    env: { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });

let fakeBin: string;
beforeAll(() => {
  chmodSync(outside, 0o777);
  mkdirSync(join(dataDir, 'secret-repo'), { recursive: true, mode: 0o755 });
  mkdirSync(home, { mode: 0o755 });
  writeFileSync(join(dataDir, 'marker.txt'), MARKER, { mode: 0o644 });
  writeFileSync(join(home, '.npmrc'), `//registry.example/:_authToken=${MARKER}\n`, { mode: 0o644 });
  // A repository in data_dir: a skill whose files hold the marker.
  const secretRepo = join(dataDir, 'secret-repo');
  writeFileSync(join(secretRepo, 'SKILL.md'), '---\nname: leaked\ndescription: Use when leaking.\n---\n# leaked\n');
  writeFileSync(join(secretRepo, 'secret.txt'), MARKER);
  git(secretRepo, 'init', '--quiet');
  git(secretRepo, 'add', '.');
  git(secretRepo, 'commit', '--quiet', '-m', 'secret');
  execFileSync('chmod', ['-R', 'a+rX', dataDir]);

  // A stand-in npm: packs a skill whose seen.txt holds what it could read, and leaves a mark on the host.
  fakeBin = join(root, 'bin');
  mkdirSync(fakeBin);
  writeFileSync(
    join(fakeBin, 'npm'),
    [
      '#!/bin/sh',
      'dest=""; prev=""',
      'for a in "$@"; do [ "$prev" = --pack-destination ] && dest="$a"; prev="$a"; done',
      'mkdir -p "$dest/p/package"',
      `{ cat ${dataDir}/marker.txt; ls ${dataDir}; cat ${home}/.npmrc; } > "$dest/p/package/seen.txt" 2>&1`,
      `echo ran > ${hostMarker}`,
      `printf -- '---\\nname: hostile\\ndescription: Use when testing.\\n---\\n# hostile\\n' > "$dest/p/package/SKILL.md"`,
      'tar -czf "$dest/hostile-1.0.0.tgz" -C "$dest/p" package && rm -rf "$dest/p"',
      'echo hostile-1.0.0.tgz',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});
beforeEach(() => {
  rmSync(installs, { recursive: true, force: true });
  rmSync(hostMarker, { force: true });
});

const contained: ContainedSettings = { mode: 'bwrap', hide: [dataDir] };
const uncontained: ContainedSettings = { mode: 'off', hide: [dataDir] };

describe('a repository whose .git points at a repository in data_dir', () => {
  function hostileRepo(): string {
    const dir = mkdtempSync(join(root, 'hostile-'));
    writeFileSync(join(dir, '.git'), `gitdir: ${join(dataDir, 'secret-repo', '.git')}\n`);
    return dir;
  }

  it.each([
    ['file://', (dir: string) => `file://${dir}`],
    ['git+file://', (dir: string) => `git+file://${dir}`],
  ])('%s: the clone cannot see data_dir, so nothing of it is installed', async (_, source) => {
    const done = await installAgentSkill({
      source: source(hostileRepo()),
      local: true,
      root: installs,
      secret: SECRET,
      env,
      sandbox: contained,
    }).catch((error: unknown) => error as Error);
    expect(done).toBeInstanceOf(Error);
    expect((done as Error).message).toMatch(/could not fetch .*\(git clone\)/);
    expect(allText(installs)).not.toContain(MARKER);
  });

  it('negative control, sandbox off: git follows the .git file and installs the secret', async () => {
    const done = await installAgentSkill({
      source: `file://${hostileRepo()}`,
      local: true,
      root: installs,
      secret: SECRET,
      env,
      sandbox: uncontained,
    });
    expect(done.name).toBe('leaked');
    expect(allText(installs)).toContain(MARKER);
  });
});

describe('a package manager that runs what the package brings', () => {
  const install = (sandbox: ContainedSettings) =>
    installAgentSkill({
      source: 'hostile@1.0.0',
      local: false,
      root: installs,
      secret: SECRET,
      env: { ...env, PATH: `${fakeBin}:${process.env.PATH}` },
      sandbox,
    });

  it('sees neither data_dir nor HOME, and leaves nothing on the host', async () => {
    const done = await install(contained);
    const seen = readFileSync(join(done.dir, 'seen.txt'), 'utf8');
    expect(seen).not.toContain(MARKER);
    expect(seen).toMatch(/No such file or directory/);
    expect(existsSync(hostMarker)).toBe(false);
  });

  it('negative control, sandbox off: it reads both and marks the host', async () => {
    const done = await install(uncontained);
    expect(readFileSync(join(done.dir, 'seen.txt'), 'utf8')).toContain(MARKER);
    expect(existsSync(hostMarker)).toBe(true);
  });
});

describe('where bubblewrap cannot run', () => {
  let brokenPath: string;
  beforeAll(() => {
    const dir = join(root, 'broken-bwrap');
    mkdirSync(dir);
    writeFileSync(join(dir, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {
      mode: 0o755,
    });
    brokenPath = `${dir}:${fakeBin}:${process.env.PATH}`;
  });
  const fix =
    /\(bubblewrap\) cannot run here: bwrap: No permissions.*apt-get install bubblewrap.*tools\.shell\.sandbox: off/;

  it('an install is refused, naming the fix, and nothing runs', async () => {
    const refused = await installAgentSkill({
      source: 'hostile@1.0.0',
      local: false,
      root: installs,
      secret: SECRET,
      env: { ...env, PATH: brokenPath },
      sandbox: contained,
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'refused_before_effect', message: expect.stringMatching(fix) });
    expect(existsSync(hostMarker)).toBe(false);
    expect(existsSync(installs)).toBe(false);
  });

  it('install_agent_skill is refused in its precheck, before any approval card', async () => {
    const loaded = parseConfig(JSON.stringify({ data_dir: dataDir }), {
      env: { KAZMA_SECRET: SECRET, PATH: brokenPath },
      baseDir: root,
    });
    const logger = createLogger({ level: 'silent', pretty: false });
    const tool = createAgentSkills({ loaded, logger, clock: systemClock }).tools.find(
      (t) => t.name === 'install_agent_skill',
    )!;
    await expect(tool.precheck!({ source: 'hostile@1.0.0' }, {} as never)).rejects.toThrow(fix);
    expect(existsSync(hostMarker)).toBe(false);
  });
});
