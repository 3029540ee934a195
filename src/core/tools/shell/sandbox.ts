import { execFile } from 'node:child_process';
import { RefusedBeforeEffect } from '../../effects/index.ts';
import { findBinary } from './binaries.ts';
import { programMounts, systemMounts, withParents } from './mounts.ts';

/** `tools.shell.sandbox`: `bwrap` contains every command in bubblewrap; `off` runs it uncontained. */
export type SandboxMode = 'bwrap' | 'off';

/** Whether bubblewrap can build the sandbox on this machine. */
export type SandboxProbe = { ok: true; bwrap: string } | { ok: false; reason: string };

/** HOME inside the sandbox: an empty directory on the private /tmp, gone when the command ends. */
export const SANDBOX_HOME = '/tmp/home';

/**
 * The unprivileged user a contained command runs as when Kazma runs as root (`tools.shell.run_as`): the
 * kernel exempts a real uid of 0 from RLIMIT_NPROC, even inside a user namespace that maps to it, so the
 * process limit holds only for a command that really is another user.
 */
export interface SandboxUser {
  uid: number;
  gid: number;
  /** util-linux `setpriv`, which drops to the user inside the sandbox, after the mounts are made. */
  setpriv: string;
}

/** What the sandbox around one command looks like; see {@link bwrapArgs}. */
export interface SandboxPlan {
  /**
   * The one writable place, bound read-write at its real path, and the working directory: the shell's
   * workspace, or an install's scratch folder. Absent: nothing is writable but the private /tmp.
   */
  workspace?: string;
  /** Keep the host's network (`tools.shell.network`; installs fetch); false: a network namespace, only loopback. */
  network: boolean;
  /** Directories replaced by an empty tmpfs, so they cannot even be read (the real HOME, Kazma's data). */
  hide: readonly string[];
  /** More host folders shown read-only at their place (a Node installation outside /usr that npm needs). */
  readOnly?: readonly string[];
  /** Run the command as this user ({@link SandboxUser}); absent: as Kazma's own user, in a user namespace. */
  user?: SandboxUser;
}

/**
 * The capabilities bubblewrap keeps when it drops to a user: setpriv's to change user and empty every set,
 * and CAP_DAC_READ_SEARCH for bubblewrap's own chdir into the workspace, which belongs to that user and
 * may be closed to others. setpriv drops them all before the command runs.
 */
const DROP_CAPS = ['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP', 'CAP_DAC_READ_SEARCH'];

/**
 * The bubblewrap arguments that run `command` (absolute program path first) contained. This is the one
 * place that decides what any contained program sees — the shell tool's commands and the programs that
 * fetch an Agent Skill (git, npm, tar) alike: of the host only the system folders and a few /etc files,
 * read-only ({@link systemMounts}; /home, /srv, /var, /run, … are absent), a fresh /dev and /proc, a
 * private /tmp and HOME, `hide` masked (in case one lies inside what is shown), `readOnly` shown, the
 * workspace the only writable bind, every namespace unshared (PID, IPC, UTS, cgroup, and network unless
 * `network`), all capabilities dropped (a root caller could otherwise remount / read-write), a new
 * session (no TIOCSTI into Kazma's terminal), and death with the parent.
 *
 * As Kazma's own user the command runs in a user namespace as well. With `user` (Kazma runs as root)
 * bubblewrap makes the mounts as root without a user namespace, keeps only the capabilities `setpriv`
 * needs, and setpriv becomes `user` — real uid and gid, no supplementary groups, no capabilities in any
 * set, no_new_privs (a setuid program in /usr gains nothing) — before it runs the command.
 * The environment is not passed here: it goes through `spawn`'s env, because argv is world-readable in
 * /proc and env is not.
 *
 * @example
 * spawn(bwrap, bwrapArgs({ workspace: '/srv/ws', network: false, hide: ['/root'] }, ['/usr/bin/ls', '-la']), { env });
 */
export function bwrapArgs(plan: SandboxPlan, command: readonly string[]): string[] {
  const { user, workspace } = plan;
  // /tmp and HOME are made by bubblewrap as root when it drops to `user` afterwards: open to everyone in the sandbox.
  const mounts = [...systemMounts(), '--dev', '/dev', '--proc', '/proc', '--perms', '1777', '--tmpfs', '/tmp'];
  for (const dir of plan.hide) mounts.push('--tmpfs', dir);
  mounts.push(...programMounts([...command.slice(0, 1), ...(user ? [user.setpriv] : [])]));
  for (const dir of plan.readOnly ?? []) mounts.push('--ro-bind', dir, dir);
  mounts.push('--perms', '0777', '--dir', SANDBOX_HOME);
  if (workspace) mounts.push('--bind', workspace, workspace);
  const args = withParents(mounts);
  if (user) {
    args.push('--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try');
    if (!plan.network) args.push('--unshare-net');
  } else {
    args.push('--unshare-all');
    if (plan.network) args.push('--share-net');
  }
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  if (user) for (const cap of DROP_CAPS) args.push('--cap-add', cap);
  if (workspace) args.push('--chdir', workspace);
  args.push('--');
  if (user) {
    args.push(user.setpriv, `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--no-new-privs');
    args.push('--inh-caps=-all', '--bounding-set=-all', '--');
  }
  return [...args, ...command];
}

/** The uid and gid contained commands run as when Kazma runs as root; see {@link SandboxUser}. */
export interface RunAs {
  uid: number;
  gid: number;
}

/** `tools.shell.run_as`'s default: nobody and nogroup. */
export const DEFAULT_RUN_AS: RunAs = Object.freeze({ uid: 65534, gid: 65534 });

/** Reads `tools.shell.run_as` (`uid` or `uid:gid`, neither 0). */
export function parseRunAs(text: string): RunAs {
  const match = /^([1-9]\d*)(?::([1-9]\d*))?$/.exec(text.trim());
  if (!match) throw new Error(`tools.shell.run_as: expected uid or uid:gid (not 0), got "${text}"`);
  const uid = Number(match[1]);
  return { uid, gid: match[2] === undefined ? uid : Number(match[2]) };
}

/** True when this process runs as root: the kernel then ignores RLIMIT_NPROC for what it starts as itself. */
export const runningAsRoot = (): boolean => process.getuid?.() === 0;

/**
 * The sandbox a command runs in: bwrap, and `user` when commands drop to an unprivileged user — or, when
 * that was wanted but cannot work here, `userProblem` (the command then runs as root in its user
 * namespace, and the process limit holds nothing).
 */
export interface ResolvedSandbox {
  bwrap: string;
  user?: SandboxUser;
  userProblem?: string;
}

/**
 * Whether bubblewrap can build the sandbox here, each binary (and each user to drop to) checked once by
 * this object: the tools module builds one, which the shell tool and the start log's report share.
 *
 * @example
 * const probes = new SandboxProbes();
 * const bwrap = await probes.require(process.env.PATH, workspace); // throws RefusedBeforeEffect when it cannot run
 */
export class SandboxProbes {
  /** Per bwrap binary (and user), its probe (run once). */
  readonly #probes = new Map<string, Promise<SandboxProbe>>();

  /**
   * Finds `bwrap` on `pathEnv` (never inside `workspace`) and checks, once per binary, that it can build
   * the sandbox here: it runs `bwrap --version` inside the same kind of sandbox ({@link bwrapArgs}), as
   * `user` when given. Where user namespaces are off it fails at once ("No permissions to create new
   * namespace"); the reason is kept.
   */
  probe(pathEnv: string | undefined, workspace = '/nonexistent', user?: SandboxUser): Promise<SandboxProbe> {
    const bwrap = findBinary('bwrap', pathEnv, workspace);
    if (!bwrap) return Promise.resolve({ ok: false, reason: 'bwrap is not installed (or not on PATH)' });
    const key = user ? `${bwrap} as ${user.uid}:${user.gid} through ${user.setpriv}` : bwrap;
    let probe = this.#probes.get(key);
    if (!probe) {
      probe = run(bwrap, user);
      this.#probes.set(key, probe);
    }
    return probe;
  }

  /**
   * Throws {@link RefusedBeforeEffect} with the reason and the way out when the sandbox cannot run; the
   * shell tool's precheck, so such a command never reaches an approval card. `what` names what would
   * have run in it.
   */
  async require(pathEnv: string | undefined, workspace: string, what = 'the shell sandbox'): Promise<string> {
    const probe = await this.probe(pathEnv, workspace);
    if (probe.ok) return probe.bwrap;
    throw new RefusedBeforeEffect(
      `${what} (bubblewrap) cannot run here: ${probe.reason}; install bubblewrap (Debian/Ubuntu: apt-get ` +
        `install bubblewrap) ` +
        'and allow unprivileged user namespaces, or set tools.shell.sandbox: off to run commands uncontained',
    );
  }

  /**
   * The sandbox to run in ({@link require}), and with `runAs` (given when Kazma runs as root) the user to
   * drop to, once setpriv is found and the sandbox is seen to start as that user.
   */
  async resolve(
    pathEnv: string | undefined,
    workspace: string,
    runAs: RunAs | undefined,
    what?: string,
  ): Promise<ResolvedSandbox> {
    const bwrap = await this.require(pathEnv, workspace, what);
    if (!runAs) return { bwrap };
    const setpriv = findBinary('setpriv', pathEnv, workspace);
    if (!setpriv) return { bwrap, userProblem: 'setpriv (util-linux) is not on PATH' };
    const user = { ...runAs, setpriv };
    const probe = await this.probe(pathEnv, workspace, user);
    return probe.ok ? { bwrap, user } : { bwrap, userProblem: probe.reason };
  }
}

function run(bwrap: string, user: SandboxUser | undefined): Promise<SandboxProbe> {
  const args = bwrapArgs({ network: false, hide: [], ...(user && { user }) }, [bwrap, '--version']);
  return new Promise((resolve) => {
    execFile(bwrap, args, { timeout: 10_000, env: { PATH: '/usr/bin:/bin' } }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true, bwrap });
      const said = stderr.trim().split('\n')[0];
      resolve({ ok: false, reason: said || `${bwrap} failed (${error.code ?? error.signal ?? error.message})` });
    });
  });
}
