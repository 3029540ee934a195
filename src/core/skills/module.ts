import { join } from 'node:path';
import { systemClock, type Clock } from '../clock.ts';
import type { StatusSection } from '../commands/index.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { RuntimeSettings } from '../settings/index.ts';
import type { ToolDefinition, ToolRegistry } from '../tools/index.ts';
import { MARK_IN_USE_MS, markInUse, pruneSkillCache } from './cache.ts';
import { inspectSkills, reportLine, type SkillReport, type SkillSearch } from './inventory.ts';
import { importSkillTools } from './load.ts';
import { freeName } from './names.ts';
import { SkillSwitches } from './switches.ts';
import { SECRET_ENV } from './verify.ts';

/** What {@link createSkills} needs; build it after every module with built-in tools, before settings. */
export interface SkillsDeps {
  loaded: LoadedConfig;
  db: Db;
  registry: ToolRegistry;
  logger: Logger;
  /** Told when following the saved switches fails (the database is down); default a warning. */
  onDbError?: (error: unknown) => void;
  /** What the skill cache's prune reads now from; default systemClock. */
  clock?: Clock;
}

/** One skill for `/config tools list` and `/status`: its verdict, its switch, its tools. */
export interface SkillView extends SkillReport {
  on: boolean;
  toolNames: string[];
}

/** Where skills are looked for, from the configuration. */
export function skillSearch(loaded: LoadedConfig): SkillSearch {
  const { skills, data_dir: dataDir } = loaded.config;
  return { paths: skills.paths, dataDir, autoDiscover: skills.auto_discover, allowUnsigned: skills.allow_unsigned };
}

/** Where checked skills' bytes are copied and imported from: `<data_dir>/skill-cache/<checksum>`. */
export const skillCache = (loaded: LoadedConfig): string => join(loaded.config.data_dir, 'skill-cache');

/** How often a process picks up skill switches another process saved. */
const FOLLOW_MS = 5_000;

/**
 * The skills module: finds skill folders, verifies each (a refused one's code is never imported, so its
 * tools cannot reach the model), imports the rest and registers their tools — under
 * `skill__<skill>__<tool>` when the plain name is taken, and never in place of a built-in.
 */
export async function createSkills({ loaded, db, registry, logger, onDbError, clock = systemClock }: SkillsDeps) {
  const reports = inspectSkills(skillSearch(loaded), loaded.env[SECRET_ENV] || undefined);
  const loadedTools = new Map<string, ToolDefinition[]>();
  const cacheRoot = skillCache(loaded);
  for (const report of reports) {
    const tools = await loadOne(report, registry, logger, cacheRoot);
    if (tools) loadedTools.set(report.name, tools);
  }
  const inUse = reports.filter((r) => loadedTools.has(r.name) && r.sealed).map((r) => r.sealed!.checksum);
  const marking = keepCacheTidy({ reports, inUse, cacheRoot, logger, clock });
  const switches = new SkillSwitches({
    settings: new RuntimeSettings(db),
    registry,
    logger,
    ...(onDbError && { onError: onDbError }),
    skills: [...loadedTools].map(([name, tools]) => ({ name, tools })),
  });
  await switches.apply();
  switches.follow(FOLLOW_MS);
  const owned = new Set([...loadedTools.values()].flat().map((t) => t.name));
  const list = (): SkillView[] =>
    reports.map((r) => ({
      ...r,
      on: switches.isOn(r.name),
      toolNames: (loadedTools.get(r.name) ?? []).map((t) => t.name),
    }));
  const status: StatusSection = {
    name: 'skills',
    lines: async () => (reports.length === 0 ? [] : ['Skills:', ...list().map(viewLine)]),
  };
  return {
    list,
    status,
    /** What `/config tools list/toggle` uses. */
    config: {
      list: () => list().map((v) => ({ name: v.name, on: v.on, loaded: loadedTools.has(v.name), line: viewLine(v) })),
      owns: (tool: string) => owned.has(tool),
      setEnabled: (name: string, on: boolean, by: string) => switches.setEnabled(name, on, by),
    },
    stop: () => {
      switches.stop();
      clearInterval(marking);
    },
  };
}

/**
 * Marks the copies `inUse` as used, now and every hour, so another process's prune leaves them be, and
 * prunes `<data_dir>/skill-cache` of copies no skill folder names now ({@link pruneSkillCache}: unused for
 * a day; never one of `reports`, loaded or not). Returns the marking timer.
 */
function keepCacheTidy(o: {
  reports: readonly SkillReport[];
  inUse: readonly string[];
  cacheRoot: string;
  logger: Logger;
  clock: Clock;
}): NodeJS.Timeout {
  const { cacheRoot, logger, clock } = o;
  const named = new Set(o.reports.flatMap((r) => (r.sealed ? [r.sealed.checksum] : [])));
  try {
    markInUse(cacheRoot, o.inUse, clock);
    const removed = pruneSkillCache(cacheRoot, named, clock);
    if (removed.length > 0)
      logger.info({ removed, cache: cacheRoot }, 'skill cache: removed copies no skill uses any more');
  } catch (error) {
    logger.warn({ err: error, cache: cacheRoot }, 'skill cache: could not prune');
  }
  const timer = setInterval(() => markInUse(cacheRoot, o.inUse, clock), MARK_IN_USE_MS);
  timer.unref();
  return timer;
}

/** A skill's line: verdict, switch, tool count, and why when it is refused or unsigned. */
export function viewLine(v: SkillView): string {
  const loaded = v.status === 'verified' || v.status === 'unsigned';
  return reportLine({
    name: v.name,
    status: v.status,
    ...(v.note && { note: v.note }),
    ...(v.manifest && { version: v.manifest.version }),
    ...(loaded && { on: v.on, toolCount: v.toolNames.length }),
  });
}

/** Imports and registers one skill's tools; a refused or broken skill is logged and changes `report` to say why. */
async function loadOne(
  report: SkillReport,
  registry: ToolRegistry,
  logger: Logger,
  cacheRoot: string,
): Promise<ToolDefinition[] | undefined> {
  const where = { skill: report.name, dir: report.dir };
  if (report.status === 'refused')
    return void logger.error(
      { ...where, reason: report.note },
      'skill refused: its tools are not offered to the model',
    );
  if (report.status === 'failed') return void logger.error({ ...where, reason: report.note }, 'skill not loaded');
  if (report.status === 'unsigned') logger.warn({ ...where, warning: report.note }, 'skill loaded unsigned');
  let tools: ToolDefinition[];
  try {
    tools = await importSkillTools(report, cacheRoot);
  } catch (error) {
    report.status = 'failed';
    report.note = `its module could not be loaded: ${(error as Error).message}`;
    return void logger.error({ ...where, reason: report.note }, 'skill not loaded');
  }
  const taken = new Set(registry.list({ includeDisabled: true }).map((t) => t.name));
  const registered: ToolDefinition[] = [];
  for (const tool of tools) {
    const name = freeName(report.name, tool.name, taken);
    if (!name) {
      logger.warn({ ...where, tool: tool.name }, 'skill tool skipped: its name and its namespaced name are both taken');
      continue;
    }
    if (name !== tool.name)
      logger.info(
        { ...where, tool: tool.name, as: name },
        'skill tool renamed: its name is taken (a skill never replaces a built-in)',
      );
    const renamed = name === tool.name ? tool : Object.freeze({ ...tool, name });
    registry.register(renamed);
    taken.add(name);
    registered.push(renamed);
  }
  logger.info({ ...where, status: report.status, tools: registered.map((t) => t.name) }, 'skill loaded');
  return registered;
}
