import { findBinary } from './binaries.ts';
import { handOver } from './hand-over.ts';
import { hiddenDirs, launchCommand } from './launch.ts';
import { runArgv, type RunResult } from './run.ts';
import {
  DEFAULT_RUN_AS,
  runningAsRoot,
  SANDBOX_HOME,
  SandboxProbes,
  type RunAs,
  type SandboxMode,
  type SandboxPlan,
} from './sandbox.ts';

/** How programs Kazma runs for an outside source are contained: `tools.shell`'s sandbox settings. */
export interface ContainedSettings {
  /** `tools.shell.sandbox`: `bwrap` (refused where bubblewrap cannot run) or `off` (on the host, uncontained). */
  mode: SandboxMode;
  /** Probes already run; default: a probe of its own. */
  probes?: SandboxProbes;
  /** `tools.shell.run_as`: who the program runs as when Kazma runs as root; default nobody (65534:65534). */
  runAs?: RunAs;
  /** Whether Kazma runs as root; default: this process's uid is 0. */
  asRoot?: boolean;
  /** Folders never shown, even if they lay inside what the sandbox shows (Kazma's data_dir); HOME always. */
  hide?: readonly string[];
}

/** Options for {@link runContained}. */
export interface ContainedOptions {
  /** The only writable folder and the working directory (an install's scratch folder). */
  scratch: string;
  /** The program's whole environment; in the sandbox HOME and TMPDIR become its private ones. */
  env: Record<string, string>;
  /** Keep the host's network (to fetch). */
  network: boolean;
  /** Host folders the program needs to read, from its resolved path (npm: the Node installation). */
  readOnly?: (program: string) => readonly string[];
  timeoutMs: number;
  settings: ContainedSettings;
  /** What runs, for the refusal when bubblewrap cannot: e.g. "installing an Agent Skill". */
  what: string;
}

/** A contained program ended with an error; `stderr` is what it said. */
export class ContainedRunError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

const MAX_OUTPUT = 1024 * 1024;

/**
 * Runs `program args` (found on the environment's PATH, never inside the scratch folder) the way the
 * shell tool runs a command — the same bubblewrap plan ({@link bwrapArgs}: of the host only /usr and a
 * few /etc files, read-only; HOME, data_dir and everything else absent; `scratch` the only writable
 * place; as `tools.shell.run_as` when Kazma runs as root) — and resolves with what it printed. Rejects with
 * {@link ContainedRunError} when it fails or times out, and with `RefusedBeforeEffect` (naming the fix)
 * when bubblewrap cannot run here. With `tools.shell.sandbox: off` it runs on the host, as Kazma's user,
 * like the shell's commands do then.
 *
 * @example
 * await runContained('git', ['clone', '--depth', '1', '--', url, 'git'], { scratch, env, network: true, ... });
 */
export async function runContained(
  program: string,
  args: readonly string[],
  options: ContainedOptions,
): Promise<RunResult> {
  const { scratch, settings } = options;
  const real = findBinary(program, options.env.PATH, scratch);
  if (!real) throw new ContainedRunError(`${program} is not installed (or not on PATH)`, '');
  let launch: { file: string; args: string[] } = { file: real, args: [...args] };
  let env = options.env;
  if (settings.mode === 'bwrap') {
    const runAs = (settings.asRoot ?? runningAsRoot()) ? (settings.runAs ?? DEFAULT_RUN_AS) : undefined;
    const probes = settings.probes ?? new SandboxProbes();
    const sandbox = await probes.resolve(options.env.PATH, scratch, runAs, options.what);
    if (sandbox.user) handOver(scratch, sandbox.user);
    const plan: SandboxPlan = {
      workspace: scratch,
      network: options.network,
      hide: hiddenDirs([options.env.HOME, ...(settings.hide ?? [])], scratch, real),
      readOnly: options.readOnly?.(real) ?? [],
      ...(sandbox.user && { user: sandbox.user }),
    };
    launch = launchCommand({ program: real, args, given: program, sandbox: { bwrap: sandbox.bwrap, plan } });
    env = { ...env, HOME: SANDBOX_HOME, TMPDIR: '/tmp' };
  }
  const result = await runArgv(launch.file, launch.args, {
    cwd: scratch,
    env,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: MAX_OUTPUT,
  });
  if (result.timedOut) throw new ContainedRunError(`${program} took longer than ${options.timeoutMs / 1000} s`, '');
  if (result.code !== 0) {
    const said = result.stderr.trim() || result.stdout.trim();
    throw new ContainedRunError(`${program} failed (exit ${result.code ?? result.signal})`, said);
  }
  return result;
}
