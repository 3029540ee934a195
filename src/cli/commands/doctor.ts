import { parseArgs } from 'node:util';
import { discordChecks } from '../../adapters/discord/index.ts';
import { slackChecks } from '../../adapters/slack/index.ts';
import { telegramChecks } from '../../adapters/telegram/index.ts';
import type { ChatPlatform } from '../../core/surface/index.ts';
import type { KazmaConfig } from '../../core/config/index.ts';
import { openDatabase } from '../../core/db/index.ts';
import { incidentLine, openIncidents, type IncidentRow } from '../../core/runs/index.ts';
import { callSite, isModelConfigured, modelEntries, probeModel, unconfiguredWarning } from '../../core/agent/index.ts';
import { type DoctorCheck, doctorLine, runDoctorCheck } from '../../core/doctor.ts';
import { embeddingsSettings, memoryDoctorCheck } from '../../core/memory/index.ts';
import { parseRunAs, sandboxStatus } from '../../core/tools/index.ts';
import { connectRedis } from '../../jobs/index.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';

/**
 * Each chat platform's checks, run when it is enabled, in this order. Typed by the platform list
 * (core/surface/platforms.ts), so a platform added there cannot be forgotten here.
 */
const PLATFORM_CHECKS: { [P in ChatPlatform]: (config: KazmaConfig[P]) => DoctorCheck[] } = {
  telegram: telegramChecks,
  discord: discordChecks,
  slack: slackChecks,
};

export const doctor: Subcommand = {
  summary: 'check configuration, database, Redis, the model, memory, the shell sandbox and platform credentials',
  usage: `Usage: kazma doctor [--config FILE]

Runs each check and prints ✓ or ✗ with the reason and the fix, then lists open incidents (work that
stalled, got stuck or failed). Exits 1 when any check fails.
Beside a running Kazma on the embedded database it checks that database through the running process.`,
  async run(args) {
    const { values } = parseArgs({ args, options: CONFIG_OPTION });
    let loaded;
    try {
      loaded = loadOrExplain(values.config);
      console.log(doctorLine({ name: 'config', status: 'ok', detail: 'valid' }));
    } catch (error) {
      return explain(error);
    }
    const { config } = loaded;
    let incidents: IncidentRow[] | undefined;
    const checks: DoctorCheck[] = [
      {
        name: 'database',
        run: async () => {
          const database = await openDatabase({
            url: config.database.url,
            dataDir: config.data_dir,
            besideOwner: true,
          });
          try {
            await database.ping();
            incidents = await openIncidents(database.db).catch(() => undefined); // not migrated yet: nothing to list
          } finally {
            await database.close();
          }
          return database.kind === 'pglite' ? 'embedded PGlite answers' : 'PostgreSQL answers';
        },
      },
      {
        name: 'redis',
        run: async () => {
          const redis = await connectRedis({ url: config.redis.url, dataDir: config.data_dir, path: loaded.env.PATH });
          await redis.ping();
          await redis.close();
          return `answers at ${redis.where}`;
        },
      },
    ];
    checks.push({
      name: 'model',
      run: async () => {
        const entry = modelEntries(config.model)[0]!;
        // No model is a choice (Kazma runs and says how to set one), not a broken install.
        if (!isModelConfigured(entry)) return unconfiguredWarning(entry);
        return probeModel(entry, callSite(entry, 'model', loaded.sources ?? {}), {
          timeoutMs: Math.min(config.model.timeout, 15_000),
        });
      },
    });
    if (config.memory.enabled) checks.push(memoryDoctorCheck(embeddingsSettings(config)));
    checks.push({
      name: 'shell sandbox',
      run: async () => {
        if (config.tools.disabled.includes('shell')) return 'shell is disabled (tools.disabled), so nothing runs in it';
        const { shell } = config.tools;
        const status = await sandboxStatus({
          mode: shell.sandbox,
          network: shell.network,
          cpuSeconds: shell.cpu_seconds,
          pathEnv: loaded.env.PATH,
          workspace: config.tools.workspace,
          memoryBytes: shell.memory,
          maxProcesses: shell.max_processes,
          runAs: parseRunAs(shell.run_as),
        });
        if (!status.ok) throw new Error(status.message);
        return status.message;
      },
    });
    for (const platform of Object.keys(PLATFORM_CHECKS) as ChatPlatform[]) {
      const section = config[platform];
      if (section.enabled)
        checks.push(...(PLATFORM_CHECKS[platform] as (config: typeof section) => DoctorCheck[])(section));
    }
    let failed = 0;
    for (const check of checks) {
      const result = await runDoctorCheck(check);
      if (result.status === 'fail') failed++;
      console.log(doctorLine(result));
    }
    // Open incidents are work in trouble, not a broken install: listed, without failing the doctor.
    if (incidents)
      console.log(
        incidents.length === 0
          ? doctorLine({ name: 'incidents', status: 'ok', detail: 'none open' })
          : [doctorLine({ name: 'incidents', status: 'warn', detail: `${incidents.length} open` })]
              .concat(incidents.map(incidentLine))
              .join('\n'),
      );
    return failed ? EXIT.failure : EXIT.ok;
  },
};
