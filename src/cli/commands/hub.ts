import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  SkillSecretMissingError,
  SkillUnknownError,
  inspectSkill,
  inspectSkills,
  reportLine,
  type SkillReport,
  importSkillTools,
  readManifest,
  writeSignature,
  skillFiles,
  searchHub,
  HUB_URL_ENV,
  SECRET_ENV,
  signSkill,
} from '../../core/skills/index.ts';
import { skillSearch } from '../../core/skills/module.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';

/** Parses `[--config FILE] [--secret S] <one positional>`; undefined after printing usage when it does not fit. */
function oneArg(
  args: string[],
  usage: string,
  required: boolean,
): { arg?: string; config?: string; secret?: string } | undefined {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...CONFIG_OPTION, secret: { type: 'string' } },
      allowPositionals: true,
    });
    if (positionals.length > 1 || (required && positionals.length === 0)) throw new Error('wrong number of arguments');
    return {
      ...(positionals[0] && { arg: positionals[0] }),
      ...(values.config && { config: values.config }),
      ...(values.secret && { secret: values.secret }),
    };
  } catch (error) {
    process.stderr.write(`kazma: ${(error as Error).message}\n${usage}\n`);
    return undefined;
  }
}

const secretOf = (given?: string) => given || process.env[SECRET_ENV] || undefined;

export const hubSign: Subcommand = {
  summary: 'sign a skill folder: writes its checksum and HMAC signature into skill.yaml (KAZMA_SECRET or --secret)',
  usage: `Usage: kazma hub sign <dir> [--secret KEY]

Hashes the skill's entry module and every file it imports inside the folder, and writes checksum and
signature (HMAC-SHA256 keyed by ${SECRET_ENV}, or --secret) into <dir>/skill.yaml. Every Kazma with the
same ${SECRET_ENV} then loads it as verified; any later change to its code makes it refused until re-signed.`,
  async run(args) {
    const parsed = oneArg(args, hubSign.usage, true);
    if (!parsed) return EXIT.usage;
    try {
      const secret = secretOf(parsed.secret);
      if (!secret) throw new SkillSecretMissingError('kazma hub sign');
      const manifest = readManifest(parsed.arg!);
      const signed = signSkill(parsed.arg!, manifest, secret);
      writeSignature(parsed.arg!, signed);
      const files = skillFiles(parsed.arg!).join(', ');
      const sum = signed.checksum.slice(0, 12);
      console.log(`signed ${manifest.name} ${manifest.version}: checksum ${sum}… over ${files}`);
      return EXIT.ok;
    } catch (error) {
      return explain(error);
    }
  },
};

export const hubValidate: Subcommand = {
  summary: 'check a skill folder: its skill.yaml, its checksum and signature, and the tools its module exports',
  usage: `Usage: kazma hub validate <dir> [--config FILE]

Says whether the skill would load verified, unsigned (only when skills.allow_unsigned in FILE names it)
or refused, and why; when it would load, imports its sealed files and lists its tools. Exit code 0 when
it would load, 1 when not.`,
  async run(args) {
    const parsed = oneArg(args, hubValidate.usage, true);
    if (!parsed) return EXIT.usage;
    let allowed: readonly string[] = [];
    try {
      if (parsed.config) allowed = loadOrExplain(parsed.config).config.skills.allow_unsigned;
    } catch (error) {
      return explain(error);
    }
    // A SKILL.md folder is an Agent Skill (instructions, no code): another kind, with its own command.
    if (!existsSync(join(parsed.arg!, 'skill.yaml')) && existsSync(join(parsed.arg!, 'SKILL.md'))) {
      process.stderr.write(
        `kazma: ${parsed.arg} is an Agent Skill (SKILL.md), not a Kazma skill package (skill.yaml): install it with ` +
          `kazma agent-skills install ${parsed.arg}; kazma agent-skills list says whether it loads\n`,
      );
      return EXIT.failure;
    }
    const report = inspectSkill(parsed.arg!, secretOf(), allowed);
    console.log(reportLine({ ...report, ...(report.manifest && { version: report.manifest.version }) }));
    if (report.status === 'refused' || report.status === 'failed') return EXIT.failure;
    // The sealed bytes are imported from a throwaway copy, as kazma start imports them from its cache.
    const cache = mkdtempSync(join(tmpdir(), 'kazma-validate-'));
    try {
      const tools = await importSkillTools(report, cache);
      for (const tool of tools) console.log(`  ${tool.name} (${tool.tier ?? 'no tier: asks'}) — ${tool.description}`);
      return EXIT.ok;
    } catch (error) {
      process.stderr.write(`kazma: its module could not be loaded: ${(error as Error).message}\n`);
      return EXIT.failure;
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  },
};

function installed(config?: string): SkillReport[] {
  return inspectSkills(skillSearch(loadOrExplain(config)), secretOf());
}

export const hubList: Subcommand = {
  summary: 'list the installed skills: verified, unsigned or refused, and why',
  usage:
    'Usage: kazma hub list [--config FILE]\n\nThe skills on skills.paths and <data_dir>/skills, checked as kazma ' +
    'start checks them (without running their code).',
  async run(args) {
    const parsed = oneArg(args, hubList.usage, false);
    if (!parsed || parsed.arg) return EXIT.usage;
    try {
      const reports = installed(parsed.config);
      if (reports.length === 0) console.log('no skills are installed (see skills.paths in kazma.yaml)');
      for (const r of reports) console.log(reportLine({ ...r, ...(r.manifest && { version: r.manifest.version }) }));
      return EXIT.ok;
    } catch (error) {
      return explain(error);
    }
  },
};

export const hubInfo: Subcommand = {
  summary: 'show one installed skill: its manifest, its state, and the files its checksum covers',
  usage: 'Usage: kazma hub info <name> [--config FILE]',
  async run(args) {
    const parsed = oneArg(args, hubInfo.usage, true);
    if (!parsed) return EXIT.usage;
    try {
      const reports = installed(parsed.config);
      const r = reports.find((x) => x.name === parsed.arg);
      if (!r)
        throw new SkillUnknownError(
          parsed.arg!,
          reports.map((x) => x.name),
        );
      const m = r.manifest;
      const lines = [`name: ${r.name}`, `folder: ${r.dir}`, `state: ${r.status}${r.note ? ` (${r.note})` : ''}`];
      if (m) {
        lines.push(
          `version: ${m.version}`,
          `description: ${m.description}`,
          `author: ${m.author}`,
          `entry_point: ${m.entry_point}`,
          `capabilities: ${m.capabilities.join(', ') || '(none)'}`,
        );
        lines.push(`signed: ${m.signature ? 'yes' : 'no'}`);
        try {
          lines.push(`files: ${skillFiles(r.dir).join(', ')}`);
        } catch (error) {
          lines.push(`files: ${(error as Error).message}`);
        }
      }
      console.log(lines.join('\n'));
      return EXIT.ok;
    } catch (error) {
      return explain(error);
    }
  },
};

export const hubSearch: Subcommand = {
  summary: `search a remote skill hub (at ${HUB_URL_ENV}) by words`,
  usage: `Usage: kazma hub search [words]

Asks the hub at ${HUB_URL_ENV} (GET <url>/skills?q=<words>) and lists what it offers.
Without ${HUB_URL_ENV} there is no hub to ask.`,
  async run(args) {
    const query = args.filter((a) => !a.startsWith('-')).join(' ');
    const url = process.env[HUB_URL_ENV];
    if (!url) {
      process.stderr.write(
        `kazma: no skill hub is configured: set ${HUB_URL_ENV} to a hub's address to search it. Installed skills: ` +
          `kazma hub list.\n`,
      );
      return EXIT.failure;
    }
    try {
      const found = await searchHub(url, query);
      if (found.length === 0) console.log(`the hub at ${url} has no skills matching "${query}"`);
      for (const s of found) console.log(`${s.name} ${s.version}${s.description ? ` — ${s.description}` : ''}`);
      return EXIT.ok;
    } catch (error) {
      return explain(error);
    }
  },
};
