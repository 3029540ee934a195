import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../clock.ts';
import type { ContainedSettings } from '../../tools/index.ts';
import { SkillSecretMissingError } from '../errors.ts';
import { SKILL_MD } from './catalog.ts';
import { AgentSkillInstallError, fetchSource } from './fetch.ts';
import { parseSkillMd } from './format.ts';
import { sealFolder } from './install-seal.ts';
import { readSource } from './source.ts';

/** What {@link installAgentSkill} needs. */
export interface InstallOptions {
  /** A local folder, a git URL (https://, git@, github:, file://, or ending in .git) or an npm package spec. */
  source: string;
  /**
   * Whether sources on this machine may be used (a folder, `file:`, `git+file:`, a tarball): true for an
   * operator's `kazma agent-skills install`, false for the model's install_agent_skill.
   */
  local: boolean;
  /** `<data_dir>/agent-skills`. */
  root: string;
  /** This install's key (`KAZMA_SECRET`); the copy is sealed with it. */
  secret: string | undefined;
  /** The environment git and npm run with (PATH and HOME at least). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where the seal's `sealed_at` is read from; default systemClock. */
  clock?: Clock;
  /**
   * How git, npm and tar are contained (`tools.shell.sandbox`, `run_as`, and `data_dir` to hide); default
   * the bubblewrap sandbox, refused where it cannot run.
   */
  sandbox?: ContainedSettings;
}

/**
 * Copies an Agent Skill under `<root>/<name>` (replacing an older copy of that name) and seals it with
 * this install's key (`.kazma-install.json`: every file's SHA-256 and their HMAC).
 *
 * @example
 * await installAgentSkill({ source: './my-skills/release-notes', local: true, root, secret, env: process.env })
 */
export async function installAgentSkill(
  options: InstallOptions,
): Promise<{ name: string; dir: string; files: number }> {
  if (!options.secret) throw new SkillSecretMissingError('installing an Agent Skill');
  const source = readSource(options.source, options.local);
  const scratch = mkdtempSync(join(tmpdir(), 'kazma-agent-skill-'));
  try {
    const fetched = await fetchSource(source, scratch, options.env, options.sandbox);
    // What the sandbox left is read on the host: a folder or a SKILL.md that is a link is not followed.
    const linked = (path: string, as: 'dir' | 'file') => {
      const stat = lstatSync(path, { throwIfNoEntry: false });
      return !(as === 'dir' ? stat?.isDirectory() : stat?.isFile());
    };
    if (source.kind !== 'folder' && linked(fetched, 'dir'))
      throw new AgentSkillInstallError(`"${options.source}" unpacked to a link or nothing, not a folder`);
    const from = skillFolder(fetched, options.source);
    if (source.kind !== 'folder' && (linked(from, 'dir') || linked(join(from, SKILL_MD), 'file')))
      throw new AgentSkillInstallError(`"${options.source}": its ${SKILL_MD} is a link, not a file`);
    const { name } = parseSkillMd(readFileSync(join(from, SKILL_MD), 'utf8'));
    const dir = join(options.root, name);
    rmSync(dir, { recursive: true, force: true });
    cpSync(from, dir, { recursive: true, filter: (path) => !/[\\/](\.git|node_modules)$/.test(path) });
    try {
      sealFolder(dir, options.secret, options.source, options.clock);
    } catch (error) {
      rmSync(dir, { recursive: true, force: true }); // a copy no seal covers is not left behind to be offered
      throw error;
    }
    return { name, dir, files: countFiles(dir) - 1 };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
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
