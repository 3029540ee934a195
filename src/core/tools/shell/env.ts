import { realpathSync } from 'node:fs';
import path from 'node:path';
import { childEnv } from '../../secrets/index.ts';
import { isInside } from '../workspace.ts';
import { gitEnv } from './git-env.ts';
import { SANDBOX_HOME } from './sandbox.ts';

/** Options for {@link shellEnv}. */
export interface ShellEnvOptions {
  /** The workspace's real path. */
  root: string;
  /** `tools.env_allow`: names passed beyond the base allowlist. */
  allow?: readonly string[];
  /** The command runs in the sandbox: HOME and TMPDIR point at its private /tmp. */
  sandboxed: boolean;
}

/**
 * The whole environment of a shell command: the allowlist ({@link childEnv}), a PATH without relative
 * entries or entries inside the workspace (a program the model wrote must not shadow a system one,
 * for the command or for anything it starts, like the `ssh` git runs), and git's hardening ({@link gitEnv}).
 */
export function shellEnv(
  parentEnv: Readonly<Record<string, string | undefined>>,
  options: ShellEnvOptions,
): Record<string, string> {
  const env = childEnv(parentEnv, { allow: options.allow });
  if (env.PATH !== undefined) {
    env.PATH = env.PATH.split(path.delimiter)
      .filter((dir) => path.isAbsolute(dir) && !isInside(options.root, real(dir)))
      .join(path.delimiter);
  }
  if (options.sandboxed) {
    env.HOME = SANDBOX_HOME;
    env.TMPDIR = '/tmp';
  }
  return { ...env, ...gitEnv(options.root) };
}

function real(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
