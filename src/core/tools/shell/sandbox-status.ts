import type { Logger } from '../../log/index.ts';
import { findBinary } from './binaries.ts';
import { SandboxProbes, type SandboxMode } from './sandbox.ts';

/** Options for {@link sandboxStatus}: the `tools.shell` settings and the PATH commands are found on. */
export interface SandboxStatusOptions {
  mode: SandboxMode;
  network: boolean;
  cpuSeconds: number;
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
 * workspace }); console.log(status.message); // "bubblewrap (/usr/bin/bwrap) contains shell commands: read-only root,
 * ..."
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
  const probe = await (options.probes ?? new SandboxProbes()).probe(options.pathEnv, options.workspace);
  if (!probe.ok) {
    return {
      state: 'unavailable',
      ok: false,
      message:
        `bubblewrap cannot run here: ${probe.reason}. Every shell command is refused until bubblewrap is installed ` +
        '(Debian/Ubuntu: apt-get install bubblewrap) and unprivileged user namespaces are allowed, or ' +
        'tools.shell.sandbox: off is set',
    };
  }
  const prlimit = findBinary('prlimit', options.pathEnv, options.workspace);
  return {
    state: 'available',
    ok: true,
    message:
      `bubblewrap (${probe.bwrap}) contains shell commands: read-only root, the workspace the only writable place, ` +
      `private /tmp and HOME, network ${options.network ? 'on (tools.shell.network)' : 'off'}, own PID namespace, ` +
      `dies with Kazma; ` +
      (prlimit ? `CPU limit ${options.cpuSeconds} s` : 'no CPU limit (prlimit from util-linux not found)'),
  };
}

/** One start-log line: info when contained, warn when off or when shell will be refused. */
export function logSandboxStatus(logger: Logger, status: SandboxStatus): void {
  if (status.state === 'available') logger.info({ sandbox: status.state }, `shell sandbox: ${status.message}`);
  else logger.warn({ sandbox: status.state }, `shell sandbox: ${status.message}`);
}
