import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { LoadedConfig } from '../../core/config/index.ts';
import {
  agentSkillLine,
  agentSkillRoots,
  installRoot,
  scanAgentSkills,
  secretOf,
  type AgentSkillEntry,
  installAgentSkill,
  installSandbox,
  sealFolder,
  SkillSecretMissingError,
  SkillUnknownError,
} from '../../core/skills/index.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';

/** Runs `body` with the configuration and the one positional argument (when `arg` is required); usage errors exit 2. */
async function withArgs(
  args: string[],
  usage: string,
  arg: boolean,
  body: (loaded: LoadedConfig, value: string) => Promise<number> | number,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: CONFIG_OPTION, allowPositionals: true });
    if (parsed.positionals.length !== (arg ? 1 : 0))
      throw new Error(arg ? 'expected one argument' : 'expected no arguments');
  } catch (error) {
    process.stderr.write(`kazma: ${(error as Error).message}\n${usage}\n`);
    return EXIT.usage;
  }
  try {
    return await body(loadOrExplain(parsed.values.config), parsed.positionals[0] ?? '');
  } catch (error) {
    return explain(error);
  }
}

const find = (loaded: LoadedConfig, name: string): AgentSkillEntry => {
  const entries = scanAgentSkills(agentSkillRoots(loaded), secretOf(loaded));
  const entry = entries.find((e) => e.name === name);
  if (!entry)
    throw new SkillUnknownError(
      name,
      entries.map((e) => e.name),
    );
  return entry;
};

export const agentSkillsInstall: Subcommand = {
  summary: 'install an Agent Skill (SKILL.md) from a folder, a git URL or an npm package, signed with KAZMA_SECRET',
  usage: `Usage: kazma agent-skills install <folder | git URL | npm package> [--config FILE]

Copies the skill under <data_dir>/agent-skills/<name> (replacing an older copy) and signs it with this
install's key (KAZMA_SECRET): .kazma-install.json holds every file's SHA-256 and their HMAC.`,
  run: (args) =>
    withArgs(args, agentSkillsInstall.usage, true, async (loaded, source) => {
      const done = await installAgentSkill({
        source,
        local: true,
        root: installRoot(loaded),
        secret: secretOf(loaded),
        env: loaded.env,
        sandbox: installSandbox(loaded),
      });
      console.log(
        `installed Agent Skill "${done.name}" in ${done.dir} (${done.files} file${done.files === 1 ? '' : 's'}, ` +
          `verified)`,
      );
      return EXIT.ok;
    }),
};

export const agentSkillsSign: Subcommand = {
  summary: 'sign an Agent Skill you trust again (after editing it, or one written by hand) with KAZMA_SECRET',
  usage:
    'Usage: kazma agent-skills sign <name> [--config FILE]\n\nWrites .kazma-install.json beside its SKILL.md: it is ' +
    'then verified until a file of it changes.',
  run: (args) =>
    withArgs(args, agentSkillsSign.usage, true, (loaded, name) => {
      const secret = secretOf(loaded);
      if (!secret) throw new SkillSecretMissingError('kazma agent-skills sign');
      const entry = find(loaded, name);
      if (entry.status === 'invalid') {
        process.stderr.write(`kazma: Agent Skill "${name}" cannot be signed: ${entry.note}\n`);
        return EXIT.failure;
      }
      sealFolder(entry.dir, secret, entry.dir);
      console.log(`signed Agent Skill "${name}" in ${entry.dir}`);
      return EXIT.ok;
    }),
};

export const agentSkillsList: Subcommand = {
  summary: 'list the Agent Skills: verified, unsigned, refused or invalid, and why',
  usage: 'Usage: kazma agent-skills list [--config FILE]',
  run: (args) =>
    withArgs(args, agentSkillsList.usage, false, (loaded) => {
      const entries = scanAgentSkills(agentSkillRoots(loaded), secretOf(loaded));
      if (entries.length === 0) console.log('no Agent Skills are installed');
      for (const entry of entries) console.log(`${agentSkillLine(entry)} — ${entry.dir}`);
      return EXIT.ok;
    }),
};

export const agentSkillsRemove: Subcommand = {
  summary: 'remove an Agent Skill installed with kazma agent-skills install',
  usage: 'Usage: kazma agent-skills remove <name> [--config FILE]',
  run: (args) =>
    withArgs(args, agentSkillsRemove.usage, true, (loaded, name) => {
      const entry = find(loaded, name);
      // Only what Kazma installed: a skill in ~/.agents or .claude belongs to someone else.
      if (resolve(dirname(entry.dir)) !== resolve(installRoot(loaded))) {
        process.stderr.write(
          `kazma: Agent Skill "${name}" was not installed by kazma (it is in ${entry.dir}); remove that folder ` +
            `yourself\n`,
        );
        return EXIT.failure;
      }
      rmSync(entry.dir, { recursive: true, force: true });
      console.log(`removed Agent Skill "${name}"`);
      return EXIT.ok;
    }),
};
