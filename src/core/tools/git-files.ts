import path from 'node:path';

// Files git reads from a work tree to decide what to run: attributes name diff, merge and filter
// drivers; .gitmodules names submodules and their URLs.
const GIT_READ_FILES = new Set(['.gitattributes', '.gitmodules']);

/**
 * Why a tool must not create, write, move or copy `file` (a path as given, or relative to the
 * workspace): it has a `.git` component — the repository's config, hooks and info, or a `.git` file
 * that points git at another directory — or it is a file git reads as attributes or submodules.
 * Undefined when git would not read it. Case-insensitive, so `.GIT` counts on any file system.
 *
 * @example
 * gitFileReason('sub/.git/config') // '"sub/.git/config" is a .git directory or inside one; ...'
 * gitFileReason('notes/todo.md')   // undefined
 */
export function gitFileReason(file: string): string | undefined {
  const parts = components(file);
  if (parts.includes('.git')) {
    return (
      `"${file}" is a .git directory or inside one: git reads it as configuration and hooks, so only git ` +
      `itself may write there; change the repository with git commands`
    );
  }
  const last = parts.at(-1);
  if (last !== undefined && GIT_READ_FILES.has(last)) {
    return (
      `"${file}" is read by git as ` +
      (last === '.gitmodules'
        ? 'submodule configuration'
        : 'attributes (which name programs to run as drivers and filters)') +
      '; it may not be written by a tool'
    );
  }
  return undefined;
}

/** True when `file` has a `.git` component (any case): git's directory, or a file pointing git elsewhere. */
export function hasGitDirComponent(file: string): boolean {
  return components(file).includes('.git');
}

function components(file: string): string[] {
  return file
    .split(/[\\/]+/)
    .filter(Boolean)
    .map((part) => part.toLowerCase());
}

/**
 * {@link gitFileReason} for a path as given (`shown`) and as resolved (`real`, inside `root`), so a
 * symlink such as `link -> .git` cannot hide where a write lands.
 */
export function gitFileReasonResolved(root: string, real: string, shown: string): string | undefined {
  const direct = gitFileReason(shown);
  if (direct) return direct;
  const relative = path.relative(root, real);
  const via = gitFileReason(relative);
  return via && `"${shown}" leads to ${relative}: ${via}`;
}
