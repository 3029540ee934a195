import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SealedSkill } from './checksum.ts';
import { MANIFEST, readManifest, type SkillManifest } from './manifest.ts';
import { verifySkill } from './verify.ts';

/**
 * One skill folder as found on disk, before its code is run: `failed` when skill.yaml is unusable (or
 * the name is taken by a skill found first), else the verdict of {@link verifySkill}. `note` is the
 * refusal reason, the warning or the failure; `sealed` the bytes to run when it may load.
 */
export interface SkillReport {
  name: string;
  dir: string;
  manifest?: SkillManifest;
  sealed?: SealedSkill;
  status: 'verified' | 'unsigned' | 'refused' | 'failed';
  note?: string;
}

/** Where skills are looked for: `skills.paths` and, always, `<data_dir>/skills`; `auto_discover` reads sub-folders. */
export interface SkillSearch {
  paths: readonly string[];
  dataDir: string;
  autoDiscover: boolean;
  /** `skills.allow_unsigned`: the skills that may load unsigned, by name. */
  allowUnsigned?: readonly string[];
}

/**
 * The skill folders on the search path, in order: a path that holds skill.yaml is a skill; with
 * `autoDiscover`, so is each of its sub-folders that holds one. Missing paths are skipped.
 */
export function skillFolders(search: SkillSearch): string[] {
  const roots = [...new Set([...search.paths, join(search.dataDir, 'skills')].map((p) => resolve(p)))];
  const found: string[] = [];
  for (const root of roots) {
    if (existsSync(join(root, MANIFEST))) found.push(root);
    else if (search.autoDiscover && existsSync(root)) {
      let children: string[];
      try {
        children = readdirSync(root, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => join(root, e.name))
          .sort();
      } catch {
        continue; // an unreadable folder holds no skill we could verify; it must not stop the start
      }
      found.push(...children.filter((dir) => existsSync(join(dir, MANIFEST))));
    }
  }
  return [...new Set(found)];
}

/** Reads and verifies every skill on the search path, running none of their code. */
export function inspectSkills(search: SkillSearch, secret: string | undefined): SkillReport[] {
  const reports: SkillReport[] = [];
  const byName = new Map<string, string>();
  for (const dir of skillFolders(search)) {
    const report = inspectSkill(dir, secret, search.allowUnsigned);
    const first = byName.get(report.name);
    const taken = `another skill named "${report.name}" was found first, in ${first}`;
    if (first) reports.push({ ...withoutSeal(report), status: 'failed', note: taken });
    else reports.push(report);
    byName.set(report.name, first ?? dir);
  }
  return reports;
}

const withoutSeal = ({ sealed: _sealed, ...report }: SkillReport): SkillReport => report;

/** One folder: its manifest and verdict (unsigned only for a name in `allowUnsigned`). */
export function inspectSkill(
  dir: string,
  secret: string | undefined,
  allowUnsigned: readonly string[] = [],
): SkillReport {
  const fallbackName = dir.split(/[\\/]/).filter(Boolean).at(-1) ?? dir;
  let manifest: SkillManifest;
  try {
    manifest = readManifest(dir);
  } catch (error) {
    return { name: fallbackName, dir, status: 'failed', note: (error as Error).message.replace(/\n\s*/g, ' ') };
  }
  const verdict = verifySkill(dir, manifest, secret, allowUnsigned);
  const note =
    verdict.status === 'refused' ? verdict.reason : verdict.status === 'unsigned' ? verdict.warning : undefined;
  const sealed = verdict.status === 'refused' ? undefined : verdict.sealed;
  return {
    name: manifest.name,
    dir,
    manifest,
    status: verdict.status,
    ...(note && { note }),
    ...(sealed && { sealed }),
  };
}

/** One line per skill, for `kazma hub list`, `/config tools list` and `/status`. */
export function reportLine(
  r: Pick<SkillReport, 'name' | 'status' | 'note'> & { version?: string; toolCount?: number; on?: boolean },
): string {
  const icon = r.status === 'verified' ? '🟢' : r.status === 'unsigned' ? '🟡' : '🔴';
  const parts = [`${icon} ${r.name}${r.version ? ` ${r.version}` : ''}`, r.status];
  if (r.on !== undefined) parts.push(r.on ? 'on' : 'off');
  if (r.toolCount !== undefined) parts.push(`${r.toolCount} tool${r.toolCount === 1 ? '' : 's'}`);
  return `${parts.join(' — ')}${r.note ? `: ${r.note}` : ''}`;
}
