import path from 'node:path';

/**
 * Settings given to git at command scope (GIT_CONFIG_COUNT/KEY_n/VALUE_n: the same as `git -c`, read
 * last, so they win over the repository's own config) for every key that names a program by a fixed
 * name. Keys named per remote, driver or alias (`remote.<r>.uploadpack`, `diff.<d>.command`,
 * `alias.<x>`) cannot be overridden this way; the policy refuses writing them (git-keys.ts) and the
 * sandbox contains whatever a repository brings.
 */
const OVERRIDES: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', ':'], // ":" is git's "no editor": commit without -m aborts instead of opening one
  ['sequence.editor', ':'],
  ['core.sshCommand', 'ssh'],
  ['core.askPass', ''],
  ['core.alternateRefsCommand', ''],
  ['core.attributesFile', '/dev/null'],
  ['credential.helper', ''], // an empty value empties the list of helpers read before it
  ['protocol.ext.allow', 'never'],
  ['gpg.program', '/dev/null'],
  ['gpg.openpgp.program', '/dev/null'],
  ['gpg.x509.program', '/dev/null'],
  ['gpg.ssh.program', '/dev/null'],
  ['gpg.ssh.defaultKeyCommand', '/dev/null'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  // A directory holding HEAD, objects/ and refs/ is a bare repository to git; the model can write one.
  ['safe.bareRepository', 'explicit'],
];

/**
 * The environment that makes every git run by the shell tool read no system or global config, never
 * prompt, never page, never open an editor, look for a repository no higher than the workspace, and
 * see {@link OVERRIDES}. Harmless for other programs, so it is given to every command.
 *
 * @example
 * spawn('git', ['status'], { env: { ...env, ...gitEnv('/srv/ws') } });
 */
export function gitEnv(workspace: string): Record<string, string> {
  const env: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    GIT_EDITOR: ':',
    GIT_SEQUENCE_EDITOR: ':',
    GIT_CEILING_DIRECTORIES: path.dirname(workspace),
    GIT_CONFIG_COUNT: String(OVERRIDES.length),
  };
  OVERRIDES.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}
