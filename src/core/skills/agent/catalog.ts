import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LoadedConfig } from '../../config/index.ts';
import { PACKAGE_ROOT } from '../../package-root.ts';
import { SECRET_ENV } from '../verify.ts';
import { parseSkillMd, type AgentSkillDoc } from './format.ts';
import { checkSeal } from './install-seal.ts';

/** The file that makes a folder an Agent Skill. */
export const SKILL_MD = 'SKILL.md';

/**
 * One Agent Skill as found: `verified` (sealed by this install and unchanged), `unsigned` (no seal:
 * offered, with a warning), `refused` (changed since sealed, or sealed with another key: never offered)
 * or `invalid` (a malformed SKILL.md: listed with its error, never offered). `note` says why.
 */
export interface AgentSkillEntry {
  name: string;
  dir: string;
  status: 'verified' | 'unsigned' | 'refused' | 'invalid';
  note?: string;
  doc?: AgentSkillDoc;
  /** What its seal says it was installed from; absent when it has none (written by hand, found in a folder). */
  source?: string;
}

/** Agent Skills shipped with Kazma. */
export const BUNDLED_AGENT_SKILLS = join(PACKAGE_ROOT, 'agent-skills');

/** Where installs go: `<data_dir>/agent-skills`. */
export const installRoot = (loaded: LoadedConfig): string => join(loaded.config.data_dir, 'agent-skills');

/**
 * The folders searched, in order (the first skill of a name wins): the bundled folder, `~/.agents/skills`,
 * `.claude/skills`, `.cursor/skills` and `.kazma/agent-skills` beside kazma.yaml (or the working
 * directory), the installed ones, then `skills.agent_paths`.
 */
export function agentSkillRoots(loaded: LoadedConfig): string[] {
  const base = loaded.path ? dirname(loaded.path) : process.cwd();
  const home = loaded.env.HOME;
  return [
    ...new Set([
      BUNDLED_AGENT_SKILLS,
      ...(home ? [join(home, '.agents/skills')] : []),
      ...['.claude/skills', '.cursor/skills', '.kazma/agent-skills'].map((p) => join(base, p)),
      installRoot(loaded),
      ...loaded.config.skills.agent_paths,
    ]),
  ];
}

/** Reads every Agent Skill under `roots`; a broken one is an `invalid` entry, never an exception. */
export function scanAgentSkills(roots: readonly string[], secret: string | undefined): AgentSkillEntry[] {
  const entries: AgentSkillEntry[] = [];
  const seen = new Map<string, string>();
  for (const root of roots) {
    if (!existsSync(root)) continue;
    let children: string[];
    try {
      children = readdirSync(root, { withFileTypes: true })
        .filter((e) => e.isDirectory() || e.isSymbolicLink())
        .map((e) => join(root, e.name))
        .sort();
    } catch {
      continue;
    }
    for (const dir of children.filter((d) => existsSync(join(d, SKILL_MD)))) {
      const entry = readEntry(dir, secret);
      const first = seen.get(entry.name);
      if (first)
        entries.push({
          name: entry.name,
          dir,
          status: 'invalid',
          note: `another Agent Skill named "${entry.name}" was found first, in ${first}`,
        });
      else entries.push(entry);
      if (!first) seen.set(entry.name, dir);
    }
  }
  return entries;
}

function readEntry(dir: string, secret: string | undefined): AgentSkillEntry {
  const fallback = dir.split(/[\\/]/).at(-1)!;
  let doc: AgentSkillDoc;
  try {
    doc = parseSkillMd(readFileSync(join(dir, SKILL_MD), 'utf8'));
  } catch (error) {
    return { name: fallback, dir, status: 'invalid', note: `${SKILL_MD}: ${(error as Error).message}` };
  }
  const seal = checkSeal(dir, secret);
  const source = seal.status !== 'unsigned' && seal.source ? { source: seal.source } : {};
  if (seal.status === 'refused') return { name: doc.name, dir, status: 'refused', note: seal.reason, ...source };
  return {
    name: doc.name,
    dir,
    status: seal.status,
    doc,
    ...source,
    ...(seal.status === 'unsigned' && { note: seal.warning }),
  };
}

/** The install's key, from the environment it was started with. */
export const secretOf = (loaded: LoadedConfig): string | undefined => loaded.env[SECRET_ENV] || undefined;

/** One line per Agent Skill, for `list_agent_skills` and `kazma agent-skills list`. */
export function agentSkillLine(e: AgentSkillEntry): string {
  const icon = e.status === 'verified' ? '🟢' : e.status === 'unsigned' ? '🟡' : '🔴';
  return `${icon} ${e.name} — ${e.status}${e.doc ? ` — ${e.doc.description}` : ''}${e.note ? ` (${e.note})` : ''}`;
}
