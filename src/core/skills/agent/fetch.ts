import { cpSync, existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RefusedBeforeEffect } from '../../effects/index.ts';
import { KazmaError } from '../../errors.ts';
import { gitEnv, isSystem, runContained, type ContainedOptions, type ContainedSettings } from '../../tools/index.ts';
import type { SkillSource } from './source.ts';

const TIMEOUT_MS = 120_000;

/** An Agent Skill could not be installed: the source is unusable or holds no (or several) SKILL.md. */
export class AgentSkillInstallError extends KazmaError {
  constructor(message: string) {
    super('agent_skill_install_failed', message);
  }
}

// npm's own settings (the registry, a cache) and the proxies pass through; nothing else of Kazma's environment.
const PASSED = /^(npm_config_\w+|https?_proxy|no_proxy)$/i;

/**
 * Brings `source` into `scratch` and returns the folder that holds it. git, npm and tar run inside the
 * shell's bubblewrap sandbox ({@link runContained}, `tools.shell.sandbox`): the network kept to fetch,
 * `scratch` the only writable folder, and nothing of the host but /usr and a few /etc files — not HOME,
 * not data_dir, not kazma.yaml — so neither a repository (a `.git` file pointing at another repository,
 * alternates) nor a package (a bundled dependency linked out of it) can bring in a file from elsewhere.
 * A local source (an operator's) is copied into `scratch` first, links kept as links. And no program runs
 * code the source brings: git clones with system and global config off and hooks off (a clone runs no
 * hook of the repository, and no filter can be configured), and npm packs with `--ignore-scripts`, so
 * neither the `prepare` of a git or `file:` package nor any other lifecycle script runs.
 * Every spawn here is listed in docs/spawn-sites.yaml.
 */
export async function fetchSource(
  source: SkillSource,
  scratch: string,
  env: Readonly<Record<string, string | undefined>>,
  settings: ContainedSettings = { mode: 'bwrap' },
): Promise<string> {
  if (source.kind === 'folder') {
    if (!existsSync(source.path))
      throw new AgentSkillInstallError(`could not fetch "${source.path}": there is no such folder`);
    return resolve(source.path);
  }
  const passed = Object.entries(env).filter(([key, value]) => PASSED.test(key) && value !== undefined);
  const base = {
    ...(Object.fromEntries(passed) as Record<string, string>),
    PATH: env.PATH ?? '/usr/bin:/bin',
    HOME: env.HOME ?? scratch,
  };
  const what = source.kind === 'git' ? 'git clone' : 'npm pack';
  const options = (childEnv: Record<string, string>, readOnly?: ContainedOptions['readOnly']): ContainedOptions => ({
    scratch,
    env: childEnv,
    network: true,
    timeoutMs: TIMEOUT_MS,
    settings,
    what: 'installing an Agent Skill (git, npm and tar run in it)',
    ...(readOnly && { readOnly }),
  });
  try {
    if (source.kind === 'git') {
      const into = join(scratch, 'git');
      const url = source.local ? `file://${copyIn(gitPath(source.url), scratch)}` : source.url;
      // Only the protocols this kind of source may use: a remote one never reaches this machine's files.
      const protocols = source.local ? 'file:https:http:ssh:git' : 'https:http:ssh:git';
      const gitSafe = { ...base, ...gitEnv(scratch), GIT_ALLOW_PROTOCOL: protocols };
      const branch = source.ref ? ['--branch', source.ref] : [];
      await runContained(
        'git',
        ['clone', '--depth', '1', '--quiet', '--no-recurse-submodules', ...branch, '--', url, into],
        options(gitSafe),
      );
      return into;
    }
    const spec = source.local ? `file:${copyIn(npmPath(source.spec), scratch)}` : source.spec;
    const npmEnv = { ...base, npm_config_ignore_scripts: 'true' };
    const { stdout } = await runContained(
      'npm',
      ['pack', spec, '--ignore-scripts', '--pack-destination', scratch, '--loglevel=error'],
      options(npmEnv, nodeInstall),
    );
    const name = stdout.trim().split('\n').at(-1) ?? '';
    if (!/^[\w.@+-]+\.tgz$/.test(name)) throw new Error(`npm pack named no tarball (it said "${name}")`);
    const tarball = join(scratch, name);
    await runContained(
      'tar',
      ['-xzf', tarball, '-C', scratch, '--no-same-owner', '--no-same-permissions'],
      options(base),
    );
    return join(scratch, 'package');
  } catch (error) {
    if (error instanceof RefusedBeforeEffect) throw error;
    // npm's pointer to its debug log names a file in the sandbox's private HOME, gone with it.
    const said = ((error as { stderr?: string }).stderr || (error as Error).message)
      .split('\n')
      .filter((line) => line.trim() && !/A complete log of this run/.test(line));
    throw new AgentSkillInstallError(
      `could not fetch "${describe(source)}" (${what}): ${said.slice(-3).join(' ') || (error as Error).message}`,
    );
  }
}

/**
 * Copies a local source (a folder or a file) to `<scratch>/source/`, links kept as links, and returns the
 * copy's path: the sandbox shows the programs only the scratch folder, so a link or a `.git` file pointing
 * elsewhere on this machine leads nowhere there.
 */
function copyIn(path: string, scratch: string): string {
  if (!existsSync(path)) throw new Error(`there is no ${path}`);
  const copy = join(scratch, 'source', basename(path));
  cpSync(path, copy, { recursive: true, verbatimSymlinks: true });
  return copy;
}

/** The folder a local git URL names: `file:///srv/repo`, or a path (`./repo.git`). */
const gitPath = (url: string): string => (url.startsWith('file://') ? fileURLToPath(url) : resolve(url));

/** The folder or tarball a local npm spec names: `file:../pkg`, `./pkg.tgz`. */
const npmPath = (spec: string): string => resolve(spec.replace(/^file:(\/\/)?/, ''));

/**
 * The Node installation npm runs on, when it is not under /usr (nvm, a tarball in /opt): shown read-only,
 * so npm's `#!/usr/bin/env node` finds it.
 */
function nodeInstall(npm: string): string[] {
  const dirs = [dirname(dirname(realpathSync(process.execPath)))];
  const at = npm.lastIndexOf('/node_modules/npm/');
  if (at >= 0) dirs.push(npm.slice(0, at + '/node_modules/npm'.length));
  return dirs.filter((dir) => dir !== '/' && !isSystem(dir));
}

const describe = (source: SkillSource): string =>
  source.kind === 'git' ? source.url : source.kind === 'npm' ? source.spec : source.path;
