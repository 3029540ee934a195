import { constants } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../define.ts';
import { openInWorkspace } from '../workspace-open.ts';
import { resolveInWorkspace, workspaceRoot } from '../workspace.ts';

/** Options for {@link listFilesTool}. */
export interface ListFilesOptions {
  /** Entries shown before the list is cut. Default 500. */
  maxEntries?: number;
}

/** `list_files` (safe, no effects): the entries of one workspace directory, directories marked with "/". */
export function listFilesTool(options: ListFilesOptions = {}) {
  const maxEntries = options.maxEntries ?? 500;
  return defineTool({
    name: 'list_files',
    description: 'List the files and directories in a workspace directory (not recursive). Directories end with "/".',
    input: z.object({ path: z.string().default('.').describe('Directory relative to the workspace; default "."') }),
    tier: 'safe',
    effects: false,
    outside: false,
    precheck({ path }, ctx) {
      resolveInWorkspace(ctx.workspace, path);
    },
    async run({ path }, ctx) {
      const root = workspaceRoot(ctx.workspace);
      const dir = await openInWorkspace(root, resolveInWorkspace(root, path), {
        flags: constants.O_RDONLY | constants.O_DIRECTORY,
      });
      let entries;
      try {
        // Listed through the open descriptor, so it is the directory that was checked.
        entries = await readdir(`/proc/self/fd/${dir.fd}`, { withFileTypes: true });
      } finally {
        await dir.close();
      }
      const names = entries
        .map((entry) =>
          entry.isDirectory() ? `${entry.name}/` : entry.isSymbolicLink() ? `${entry.name}@` : entry.name,
        )
        .sort();
      if (names.length === 0) return '(empty directory)';
      const shown = names.slice(0, maxEntries);
      if (names.length > maxEntries) shown.push(`… ${names.length - maxEntries} more entries not shown`);
      return shown.join('\n');
    },
  });
}
