import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { KazmaError } from '../../errors.ts';
import { gitEnv } from '../../tools/index.ts';
import type { SkillSource } from './source.ts';

const run = promisify(execFile);
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
 * Brings `source` into `scratch` and returns the folder that holds it. No program runs code the source
 * brings: git clones with system and global config off and hooks off (a clone runs no hook of the
 * repository, and no filter can be configured), and npm packs with `--ignore-scripts`, so neither the
 * `prepare` of a git or `file:` package nor any other lifecycle script runs as Kazma's user.
 * Every spawn here is listed in docs/spawn-sites.yaml.
 */
export async function fetchSource(
  source: SkillSource,
  scratch: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  if (source.kind === 'folder') {
    if (!existsSync(source.path))
      throw new AgentSkillInstallError(`could not fetch "${source.path}": there is no such folder`);
    return resolve(source.path);
  }
  const passed = Object.entries(env).filter(([key, value]) => PASSED.test(key) && value !== undefined);
  const base = { ...Object.fromEntries(passed), PATH: env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? scratch };
  const what = source.kind === 'git' ? 'git clone' : 'npm pack';
  try {
    if (source.kind === 'git') {
      const into = join(scratch, 'git');
      // Only the protocols this kind of source may use: a remote one never reaches this machine's files.
      const protocols = source.local ? 'file:https:http:ssh:git' : 'https:http:ssh:git';
      const gitSafe = { ...base, ...gitEnv(scratch), GIT_ALLOW_PROTOCOL: protocols };
      const branch = source.ref ? ['--branch', source.ref] : [];
      await run(
        'git',
        ['clone', '--depth', '1', '--quiet', '--no-recurse-submodules', ...branch, '--', source.url, into],
        { env: gitSafe, timeout: TIMEOUT_MS },
      );
      return into;
    }
    const npmEnv = { ...base, npm_config_ignore_scripts: 'true' };
    const { stdout } = await run(
      'npm',
      ['pack', source.spec, '--ignore-scripts', '--pack-destination', scratch, '--silent'],
      { env: npmEnv, timeout: TIMEOUT_MS },
    );
    const tarball = join(scratch, stdout.trim().split('\n').at(-1)!);
    await run('tar', ['-xzf', tarball, '-C', scratch, '--no-same-owner', '--no-same-permissions'], {
      env: base,
      timeout: TIMEOUT_MS,
    });
    return join(scratch, 'package');
  } catch (error) {
    const said = (error as { stderr?: string }).stderr || (error as Error).message;
    throw new AgentSkillInstallError(
      `could not fetch "${describe(source)}" (${what}): ${said.trim().split('\n').slice(-3).join(' ')}`,
    );
  }
}

const describe = (source: SkillSource): string =>
  source.kind === 'git' ? source.url : source.kind === 'npm' ? source.spec : source.path;
