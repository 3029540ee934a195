import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Clock } from '../../clock.ts';
import { KazmaError } from '../../errors.ts';
import { SkillSecretMissingError } from '../errors.ts';
import { SKILL_MD } from './catalog.ts';
import { parseSkillMd } from './format.ts';
import { sealFolder } from './install-seal.ts';

const run = promisify(execFile);

/** An Agent Skill could not be installed: the source is unusable or holds no (or several) SKILL.md. */
export class AgentSkillInstallError extends KazmaError {
  constructor(message: string) {
    super('agent_skill_install_failed', message);
  }
}

/** What {@link installAgentSkill} needs. */
export interface InstallOptions {
  /** A local folder, a git URL (https://, git@, file://, or ending in .git) or an npm package spec. */
  source: string;
  /** `<data_dir>/agent-skills`. */
  root: string;
  /** This install's key (`KAZMA_SECRET`); the copy is sealed with it. */
  secret: string | undefined;
  /** The environment git and npm run with (PATH and HOME at least). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where the seal's `sealed_at` is read from; default systemClock. */
  clock?: Clock;
}

const isGit = (s: string) => /^(https?:\/\/|git@|git:\/\/|ssh:\/\/|file:\/\/)/.test(s) || s.endsWith('.git');

/**
 * Copies an Agent Skill under `<root>/<name>` (replacing an older copy of that name) and seals it with
 * this install's key (`.kazma-install.json`: every file's SHA-256 and their HMAC).
 *
 * @example
 * await installAgentSkill({ source: './my-skills/release-notes', root, secret, env: process.env })
 */
export async function installAgentSkill(
  options: InstallOptions,
): Promise<{ name: string; dir: string; files: number }> {
  if (!options.secret) throw new SkillSecretMissingError('installing an Agent Skill');
  const scratch = mkdtempSync(join(tmpdir(), 'kazma-agent-skill-'));
  try {
    const fetched = await fetchSource(options.source, scratch, options.env);
    const from = skillFolder(fetched, options.source);
    const { name } = parseSkillMd(readFileSync(join(from, SKILL_MD), 'utf8'));
    const dir = join(options.root, name);
    rmSync(dir, { recursive: true, force: true });
    cpSync(from, dir, { recursive: true, filter: (path) => !/[\\/](\.git|node_modules)$/.test(path) });
    sealFolder(dir, options.secret, options.source, options.clock);
    return { name, dir, files: countFiles(dir) - 1 };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function fetchSource(source: string, scratch: string, env: InstallOptions['env']): Promise<string> {
  const childEnv = { PATH: env.PATH, HOME: env.HOME ?? scratch, GIT_TERMINAL_PROMPT: '0' };
  if (existsSync(source) && statSync(source).isDirectory()) return resolve(source);
  try {
    if (isGit(source)) {
      await run('git', ['clone', '--depth', '1', '--quiet', source, join(scratch, 'git')], {
        env: childEnv,
        timeout: 120_000,
      });
      return join(scratch, 'git');
    }
    const { stdout } = await run('npm', ['pack', source, '--pack-destination', scratch, '--silent'], {
      env: childEnv,
      timeout: 120_000,
    });
    await run('tar', ['-xzf', join(scratch, stdout.trim().split('\n').at(-1)!), '-C', scratch], { env: childEnv });
    return join(scratch, 'package');
  } catch (error) {
    const detail = ((error as { stderr?: string }).stderr || (error as Error).message)
      .trim()
      .split('\n')
      .slice(-3)
      .join(' ');
    throw new AgentSkillInstallError(
      `could not fetch "${source}" (${isGit(source) ? 'git clone' : 'npm pack'}): ${detail}`,
    );
  }
}

/** The folder holding SKILL.md: the source itself, or its only sub-folder (up to three levels) that has one. */
function skillFolder(dir: string, source: string): string {
  if (existsSync(join(dir, SKILL_MD))) return dir;
  const found: string[] = [];
  const walk = (at: string, depth: number): void => {
    for (const e of readdirSync(at, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name === '.git' || e.name === 'node_modules') continue;
      const sub = join(at, e.name);
      if (existsSync(join(sub, SKILL_MD))) found.push(sub);
      else if (depth < 3) walk(sub, depth + 1);
    }
  };
  walk(dir, 1);
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw new AgentSkillInstallError(`"${source}" holds no ${SKILL_MD}`);
  throw new AgentSkillInstallError(
    `"${source}" holds several Agent Skills (${found.map((f) => f.slice(dir.length + 1)).join(', ')}); install one ` +
      `folder at a time`,
  );
}

function countFiles(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).length;
}
