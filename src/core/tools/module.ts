import { mkdirSync } from 'node:fs';
import type { Clock } from '../clock.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Logger } from '../log/index.ts';
import { builtinTools } from './builtin/index.ts';
import type { ToolContext, ToolDefinition } from './define.ts';
import type { AuthorizeEffect } from './guards/index.ts';
import { ToolRegistry } from './registry.ts';
import { parseRunAs, SandboxProbes } from './shell/sandbox.ts';
import { logSandboxStatus, sandboxStatus } from './shell/sandbox-status.ts';

/** What {@link createTools} needs. */
export interface ToolsDeps {
  loaded: LoadedConfig;
  logger: Logger;
  /** What `current_time` reads. */
  clock: Clock;
  /** Tools registered after the built-ins (plugins; a test's own tools). */
  extra?: readonly ToolDefinition[];
  /** The check before every effect (core/commitment's authorizeEffect). Default: the tools' own prechecks. */
  authorize?: AuthorizeEffect;
}

/** The tools module: the registry every call goes through, and the context a call runs in. */
export interface ToolsModule {
  registry: ToolRegistry;
  /** What a tool sees while it runs, built per call; `signal` aborts it. */
  toolContext(signal?: AbortSignal): ToolContext;
}

/**
 * Registers the built-in tools (configured from `tools.*`) and any extras, creates the workspace, and
 * says in the log whether shell commands will run contained.
 */
export async function createTools({ loaded, logger, clock, extra = [], authorize }: ToolsDeps): Promise<ToolsModule> {
  const { config } = loaded;
  const registry = new ToolRegistry({ disabled: config.tools.disabled, ...(authorize && { authorize }) });
  const { shell: shellConfig, env_allow: envAllow } = config.tools;
  // One probe of bubblewrap for the shell tool and the start log's report.
  const probes = new SandboxProbes();
  const shell = {
    timeoutMs: shellConfig.timeout,
    ...(shellConfig.allow && { allow: shellConfig.allow }),
    sandbox: shellConfig.sandbox,
    network: shellConfig.network,
    cpuSeconds: shellConfig.cpu_seconds,
    envAllow,
    hide: [config.data_dir],
    probes,
    memoryBytes: shellConfig.memory,
    maxProcesses: shellConfig.max_processes,
    runAs: parseRunAs(shellConfig.run_as),
  };
  for (const tool of [...builtinTools({ time: { zone: config.time.zone, clock }, shell }), ...extra])
    registry.register(tool);
  mkdirSync(config.tools.workspace, { recursive: true });
  if (registry.get('shell')) {
    // Not awaited: the probe runs bwrap (~100 ms of waiting on a child) only to say it in the log, and the
    // start need not wait for that line. The shell tool's own precheck awaits the same (cached) probe.
    void sandboxStatus({
      mode: shellConfig.sandbox,
      network: shellConfig.network,
      cpuSeconds: shellConfig.cpu_seconds,
      pathEnv: loaded.env.PATH,
      workspace: config.tools.workspace,
      probes,
      memoryBytes: shellConfig.memory,
      maxProcesses: shellConfig.max_processes,
      runAs: shell.runAs,
    }).then(
      (status) => logSandboxStatus(logger, status),
      (error: unknown) => logger.warn({ err: error }, 'shell sandbox: the probe failed'),
    );
  }
  return {
    registry,
    toolContext: (signal) => ({
      workspace: config.tools.workspace,
      env: loaded.env,
      secrets: loaded.secrets,
      ...(signal && { signal }),
    }),
  };
}
