/**
 * Config sections where every key is (or leads to) something git runs: aliases (`!cmd`), filters,
 * included files, pagers, credential helpers, mail transports, transport policy, tools, browsers,
 * submodule update commands, trailer commands, signing programs and the safety switches.
 */
const EXEC_SECTIONS = new Set([
  'alias',
  'filter',
  'include',
  'includeif',
  'pager',
  'credential',
  'sendemail',
  'protocol',
  'safe',
  'difftool',
  'mergetool',
  'guitool',
  'browser',
  'man',
  'instaweb',
  'trailer',
  'submodule',
  'gpg',
  'imap',
  'uploadpack',
]);

/**
 * Key names (the part after the last dot) that name a program, a command, a hook or a place git
 * takes them from, in whatever section: `remote.<r>.uploadpack`, `core.alternateRefsCommand`,
 * `diff.<d>.command`, `diff.<d>.textconv`, `merge.<d>.driver`, `core.hooksPath`, `core.worktree`, ...
 */
const EXEC_NAME = new RegExp(
  '(cmd|command|program|helper|driver|hook|tunnel|editor|pager|textconv|askpass|gitproxy|fsmonitor|external|' +
    'worktree|attributesfile|templatedir|variant|uploadpack|receivepack|vcs|browser|tool|path)$',
);

/**
 * True when `git config <key> ...` could make git run a program of the writer's choosing, or make it
 * read configuration or attributes from elsewhere. Case-insensitive, as git's keys are; a subsection
 * may contain dots (`credential.https://x.helper`), so the section is the first part and the name
 * the last.
 *
 * @example
 * isExecKey('remote.origin.uploadpack') // true
 * isExecKey('user.name')                // false
 */
export function isExecKey(key: string): boolean {
  const lower = key.toLowerCase();
  const first = lower.indexOf('.');
  const last = lower.lastIndexOf('.');
  if (first <= 0 || last === lower.length - 1 || /\s/.test(lower.slice(0, first))) return false;
  return EXEC_SECTIONS.has(lower.slice(0, first)) || EXEC_NAME.test(lower.slice(last + 1));
}
