import type { Logger } from '../../log/index.ts';
import { findBinary } from './binaries.ts';
import { DEFAULT_RUN_AS, runningAsRoot, SandboxProbes, type RunAs, type SandboxMode } from './sandbox.ts';

/** Options for {@link sandboxStatus}: the `tools.shell` settings and the PATH commands are found on. */
export interface SandboxStatusOptions {
  mode: SandboxMode;
  network: boolean;
  cpuSeconds: number;
  /** `tools.shell.memory` in bytes; default 512 MB. */
  memoryBytes?: number;
  /** `tools.shell.max_processes`; default 64. */
  maxProcesses?: number;
  /** Whether Kazma runs as root, which the kernel exempts from RLIMIT_NPROC; default: this process's uid is 0. */
  asRoot?: boolean;
  /** `tools.shell.run_as`: who commands run as when Kazma runs as root; default nobody (65534:65534). */
  runAs?: RunAs;
  pathEnv: string | undefined;
  /** The workspace: a bwrap or prlimit inside it is never used. */
  workspace: string;
  /** Probes already run (the shell tool's); default: a probe of its own. */
  probes?: SandboxProbes;
}

/** The shell sandbox as `kazma doctor` and the start log report it; `ok` is false when shell is refused. */
export interface SandboxStatus {
  state: 'available' | 'unavailable' | 'off';
  ok: boolean;
  message: string;
}

/**
 * Says plainly whether shell commands run contained, and if not, why and what to do.
 *
 * @example
 * const status = await sandboxStatus({ mode: 'bwrap', network: false, cpuSeconds: 60, pathEnv: process.env.PATH,
 * workspace });
 * console.log(status.message); // "bubblewrap (/usr/bin/bwrap) contains shell commands: read-only root, ..."
 */
export async function sandboxStatus(options: SandboxStatusOptions): Promise<SandboxStatus> {
  if (options.mode === 'off') {
    return {
      state: 'off',
      ok: true,
      message:
        'off (tools.shell.sandbox: off): shell commands run uncontained, with only the shell policy in front of them',
    };
  }
  const probes = options.probes ?? new SandboxProbes();
  const probe = await probes.probe(options.pathEnv, options.workspace);
  if (!probe.ok) {
    return {
      state: 'unavailable',
      ok: false,
      message:
        `bubblewrap cannot run here: ${probe.reason}. Every shell command and every Agent Skill install is refused ` +
        'until bubblewrap is installed (Debian/Ubuntu: apt-get install bubblewrap) and unprivileged user ' +
        'namespaces are allowed, or tools.shell.sandbox: off is set',
    };
  }
  const root = options.asRoot ?? runningAsRoot();
  const runAs = options.runAs ?? DEFAULT_RUN_AS;
  const sandbox = await probes.resolve(options.pathEnv, options.workspace, root ? runAs : undefined);
  const prlimit = findBinary('prlimit', options.pathEnv, options.workspace);
  const as = sandbox.user
    ? `; commands run as uid ${runAs.uid}:${runAs.gid} (tools.shell.run_as), not as root, so that the kernel ` +
      'holds them to the process limit'
    : '';
  return {
    state: 'available',
    ok: true,
    message:
      `bubblewrap (${probe.bwrap}) contains shell commands: of the host only /usr and a few /etc files, ` +
      'read-only; the workspace the only writable place, ' +
      `private /tmp and HOME, network ${options.network ? 'on (tools.shell.network)' : 'off'}, own PID namespace, ` +
      `dies with Kazma; ` +
      (prlimit
        ? limits(options, root ? sandbox.userProblem : undefined)
        : 'no CPU, memory or process limit (prlimit from util-linux not found)') +
      as,
  };
}

function limits(options: SandboxStatusOptions, rootProblem: string | undefined): string {
  const megabytes = Math.round((options.memoryBytes ?? 512 * 1024 ** 2) / 1024 ** 2);
  const processes = options.maxProcesses ?? 64;
  const said = `CPU limit ${options.cpuSeconds} s, memory ${megabytes} MB and ${processes} processes per command`;
  // Said, not hidden: a fork bomb is then stopped only by the timeout and the PID namespace's end.
  return rootProblem
    ? `${said} (the process limit is not enforced: Kazma runs as root, which the kernel exempts from ` +
        `RLIMIT_NPROC, and commands cannot drop to tools.shell.run_as here: ${rootProblem})`
    : said;
}

/** One start-log line: info when contained, warn when off or when shell will be refused. */
export function logSandboxStatus(logger: Logger, status: SandboxStatus): void {
  if (status.state === 'available') logger.info({ sandbox: status.state }, `shell sandbox: ${status.message}`);
  else logger.warn({ sandbox: status.state }, `shell sandbox: ${status.message}`);
}
