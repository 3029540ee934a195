import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { RefusedBeforeEffect } from '../../effects/index.ts';
import { findBinary } from './binaries.ts';

/** `tools.shell.sandbox`: `bwrap` contains every command in bubblewrap; `off` runs it uncontained. */
export type SandboxMode = 'bwrap' | 'off';

/** Whether bubblewrap can build the sandbox on this machine. */
export type SandboxProbe = { ok: true; bwrap: string } | { ok: false; reason: string };

/** HOME inside the sandbox: an empty directory on the private /tmp, gone when the command ends. */
export const SANDBOX_HOME = '/tmp/home';

/** What the sandbox around one command looks like; see {@link bwrapArgs}. */
export interface SandboxPlan {
  /** The workspace's real path: bound read-write at the same place, and the working directory. */
  workspace: string;
  /** Keep the host's network (`tools.shell.network`); when false, a network namespace with only loopback. */
  network: boolean;
  /** Directories replaced by an empty tmpfs, so they cannot even be read (the real HOME, Kazma's data). */
  hide: readonly string[];
}

/**
 * The bubblewrap arguments that run `command` (absolute program path first) contained: the root file
 * system read-only, a fresh /dev and /proc, a private /tmp (and /run without network, where sockets
 * live), `hide` masked, the workspace the only writable bind, every namespace unshared (PID, IPC, UTS,
 * cgroup, user, and network unless `network`), all capabilities dropped (a root caller could otherwise
 * remount / read-write), a new session (no TIOCSTI into Kazma's terminal), and death with the parent.
 * The environment is not passed here: it goes through `spawn`'s env, because argv is world-readable in
 * /proc and env is not.
 *
 * @example
 * spawn(bwrap, bwrapArgs({ workspace: '/srv/ws', network: false, hide: ['/root'] }, ['/usr/bin/ls', '-la']), { env });
 */
export function bwrapArgs(plan: SandboxPlan, command: readonly string[]): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  if (!plan.network && existsSync('/run')) args.push('--tmpfs', '/run');
  for (const dir of plan.hide) args.push('--tmpfs', dir);
  args.push('--dir', SANDBOX_HOME, '--bind', plan.workspace, plan.workspace, '--unshare-all');
  if (plan.network) args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--chdir', plan.workspace, '--', ...command);
  return args;
}

/**
 * Whether bubblewrap can build the sandbox here, each binary checked once by this object: the tools module
 * builds one, which the shell tool and the start log's report share.
 *
 * @example
 * const probes = new SandboxProbes();
 * const bwrap = await probes.require(process.env.PATH, workspace); // throws RefusedBeforeEffect when it cannot run
 */
export class SandboxProbes {
  /** Per bwrap binary, its probe (run once). */
  readonly #probes = new Map<string, Promise<SandboxProbe>>();

  /**
   * Finds `bwrap` on `pathEnv` (never inside `workspace`) and checks, once per binary, that it can build
   * the sandbox here: it runs `bwrap --version` inside the same kind of sandbox. Where user namespaces
   * are off it fails at once ("No permissions to create new namespace"); the reason is kept.
   */
  probe(pathEnv: string | undefined, workspace = '/nonexistent'): Promise<SandboxProbe> {
    const bwrap = findBinary('bwrap', pathEnv, workspace);
    if (!bwrap) return Promise.resolve({ ok: false, reason: 'bwrap is not installed (or not on PATH)' });
    let probe = this.#probes.get(bwrap);
    if (!probe) {
      probe = run(bwrap);
      this.#probes.set(bwrap, probe);
    }
    return probe;
  }

  /**
   * Throws {@link RefusedBeforeEffect} with the reason and the way out when the sandbox cannot run; the
   * shell tool's precheck, so such a command never reaches an approval card.
   */
  async require(pathEnv: string | undefined, workspace: string): Promise<string> {
    const probe = await this.probe(pathEnv, workspace);
    if (probe.ok) return probe.bwrap;
    throw new RefusedBeforeEffect(
      `the shell sandbox (bubblewrap) cannot run here: ${probe.reason}; install bubblewrap (Debian/Ubuntu: apt-get ` +
        `install bubblewrap) ` +
        'and allow unprivileged user namespaces, or set tools.shell.sandbox: off to run commands uncontained',
    );
  }
}

function run(bwrap: string): Promise<SandboxProbe> {
  const args = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--',
    bwrap,
    '--version',
  ];
  return new Promise((resolve) => {
    execFile(bwrap, args, { timeout: 10_000, env: { PATH: '/usr/bin:/bin' } }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true, bwrap });
      const said = stderr.trim().split('\n')[0];
      resolve({ ok: false, reason: said || `${bwrap} failed (${error.code ?? error.signal ?? error.message})` });
    });
  });
}
