import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { KazmaConfig } from './schema.ts';

const FIX = 'give the workspace a folder of its own, apart from these, e.g. tools.workspace: ./kazma-workspace';

/**
 * Refuses a `tools.workspace` that overlaps what Kazma runs from: the file and shell tools may write
 * anywhere in the workspace, so a workspace holding `data_dir` could change the database and plant a skill
 * in `<data_dir>/skills`, one holding kazma.yaml's folder could add an operator, and one holding (or inside)
 * a skills folder could plant a skill. A workspace inside `data_dir` is refused too: Kazma owns every
 * folder there. Paths are compared as they really are (symlinks resolved where they exist).
 *
 * @example
 * workspaceIssues(config, { configFile: '/srv/kazma/kazma.yaml', home: '/home/kazma' }) // [] when apart
 */
export function workspaceIssues(config: KazmaConfig, where: { configFile?: string; home?: string }): string[] {
  const workspace = real(config.tools.workspace);
  const shown = `tools.workspace: ${config.tools.workspace}`;
  const issues: string[] = [];
  const dataDir = real(config.data_dir);
  if (inside(dataDir, workspace)) {
    const why = "the tools could rewrite Kazma's database and skills";
    issues.push(`${shown} contains data_dir (${config.data_dir}): ${why}; ${FIX}`);
  } else if (inside(workspace, dataDir)) {
    issues.push(`${shown} is inside data_dir (${config.data_dir}), which is Kazma's own; ${FIX}`);
  }
  if (where.configFile && inside(real(dirname(where.configFile)), workspace)) {
    const file = basename(where.configFile);
    issues.push(`${shown} contains the folder of ${file}: write_file could change it (add an operator); ${FIX}`);
  }
  const home = where.home ? [join(where.home, '.agents/skills')] : [];
  for (const folder of [...config.skills.paths, ...config.skills.agent_paths, ...home]) {
    const path = real(folder);
    const relation = inside(path, workspace) ? 'contains' : inside(workspace, path) ? 'is inside' : undefined;
    if (!relation) continue;
    issues.push(`${shown} ${relation} the skills folder ${folder}: the tools could plant a skill; ${FIX}`);
  }
  return issues;
}

/** `path` with its existing part's symlinks resolved (the rest may not exist yet). */
function real(path: string): string {
  if (existsSync(path)) return realpathSync(path);
  const parent = dirname(path);
  return parent === path ? path : join(real(parent), basename(path));
}

/** Whether `candidate` is `root` or lies under it. */
function inside(candidate: string, root: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
