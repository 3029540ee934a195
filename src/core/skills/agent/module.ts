import type { Clock } from '../../clock.ts';
import type { LoadedConfig } from '../../config/index.ts';
import type { Logger } from '../../log/index.ts';
import { randomBytes } from 'node:crypto';
import {
  fenceOutside,
  parseRunAs,
  SandboxProbes,
  type ContainedSettings,
  type ToolDefinition,
} from '../../tools/index.ts';
import { agentSkillRoots, installRoot, scanAgentSkills, secretOf, type AgentSkillEntry } from './catalog.ts';
import { installAgentSkill } from './install.ts';
import { readSource } from './source.ts';
import { agentSkillTools } from './tools.ts';

/** How long a scan is reused for the system prompt: a model call must not re-hash every skill each time. */
const PROMPT_SCAN_MS = 5_000;
const MAX_DESCRIPTION = 200;

/**
 * The Agent Skills module: reads SKILL.md folders (a malformed one is logged and listed, never fatal),
 * gives the agent its prompt lines (name + description of each usable skill) and the three tools, and
 * lists them with their verdicts (the web page's tools page; the same scan, at most {@link PROMPT_SCAN_MS} old).
 * Build it before the tools module (its tools go in as extras) and pass `promptLines` to the agent.
 */
export function createAgentSkills({ loaded, logger, clock }: { loaded: LoadedConfig; logger: Logger; clock: Clock }): {
  tools: ToolDefinition[];
  promptLines: () => string[];
  list: () => AgentSkillEntry[];
} {
  const roots = agentSkillRoots(loaded);
  const scan = () => scanAgentSkills(roots, secretOf(loaded));
  for (const entry of scan()) {
    const where = { agentSkill: entry.name, dir: entry.dir };
    if (entry.status === 'invalid')
      logger.warn({ ...where, error: entry.note }, 'Agent Skill not usable: its SKILL.md is malformed');
    else if (entry.status === 'refused')
      logger.error({ ...where, reason: entry.note }, 'Agent Skill refused: it is not offered to the model');
    else if (entry.status === 'unsigned') logger.warn({ ...where, warning: entry.note }, 'Agent Skill loaded unsigned');
  }
  let cached: { at: number; entries: AgentSkillEntry[] } | undefined;
  // Descriptions are written by whoever wrote the skill: fenced as outside text. One boundary for the
  // process keeps the system prompt the same from call to call (a provider's prompt cache).
  const boundary = randomBytes(12).toString('hex');
  const recent = (): AgentSkillEntry[] => {
    if (!cached || performance.now() - cached.at > PROMPT_SCAN_MS) cached = { at: performance.now(), entries: scan() };
    return cached.entries;
  };
  const promptLines = (): string[] => {
    const usable = recent().filter((e) => e.doc && (e.status === 'verified' || e.status === 'unsigned'));
    if (usable.length === 0) return [];
    const line = (e: AgentSkillEntry) =>
      `- ${e.name}: ${e.doc!.description.replace(/\s+/g, ' ').slice(0, MAX_DESCRIPTION)}`;
    const lines = usable.map(line);
    return [
      'Agent Skills (instructions for particular tasks): before a task one of them fits, read it with ' +
        'load_agent_skill.',
      fenceOutside(lines.join('\n'), "the installed Agent Skills' names and descriptions", boundary),
    ];
  };
  const sandbox = installSandbox(loaded);
  const tools = agentSkillTools({
    precheck: async (source) => {
      readSource(source, false);
      if (sandbox.mode === 'bwrap') await sandbox.probes!.require(loaded.env.PATH, '/nonexistent', INSTALL_SANDBOX);
    },
    scan: () => {
      cached = undefined;
      return scan();
    },
    install: async (source) => {
      // The model's install: only remote sources (readSource), so a card never approves this machine's files.
      const done = await installAgentSkill({
        source,
        local: false,
        root: installRoot(loaded),
        secret: secretOf(loaded),
        env: loaded.env,
        clock,
        sandbox,
      });
      cached = undefined;
      logger.info({ agentSkill: done.name, dir: done.dir, source }, 'Agent Skill installed');
      return done;
    },
  });
  return { tools, promptLines, list: recent };
}

const INSTALL_SANDBOX = 'installing an Agent Skill (git, npm and tar run in it)';

/**
 * How an Agent Skill install's git, npm and tar are contained: as the shell's commands are
 * (`tools.shell.sandbox`, `tools.shell.run_as`), with Kazma's data_dir hidden too.
 */
export function installSandbox(loaded: LoadedConfig): ContainedSettings & { probes: SandboxProbes } {
  const { shell } = loaded.config.tools;
  return {
    mode: shell.sandbox,
    probes: new SandboxProbes(),
    runAs: parseRunAs(shell.run_as),
    hide: [loaded.config.data_dir],
  };
}
