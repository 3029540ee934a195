import { constants } from 'node:fs';
import { z } from 'zod';
import { defineTool } from '../define.ts';
import { openInWorkspace } from '../workspace-open.ts';
import { resolveInWorkspace, workspaceRoot } from '../workspace.ts';

/** Options for {@link readFileTool}. */
export interface ReadFileOptions {
  /** Bytes returned at most; a longer file is cut and says so. Default 256 KiB. */
  maxBytes?: number;
}

/** `read_file` (safe, no effects): a UTF-8 text file from the workspace, size-capped. */
export function readFileTool(options: ReadFileOptions = {}) {
  const maxBytes = options.maxBytes ?? 256 * 1024;
  return defineTool({
    name: 'read_file',
    description: `Read a text file in the workspace. Files over ${maxBytes} bytes are cut at that size.`,
    input: z.object({ path: z.string().min(1).describe('File path relative to the workspace') }),
    tier: 'safe',
    effects: false,
    // A workspace file may come from anywhere (a clone, a download): its words are data.
    outside: true,
    precheck({ path }, ctx) {
      resolveInWorkspace(ctx.workspace, path);
    },
    async run({ path }, ctx) {
      const root = workspaceRoot(ctx.workspace);
      const file = await openInWorkspace(root, resolveInWorkspace(root, path), { flags: constants.O_RDONLY });
      try {
        const stats = await file.stat();
        if (!stats.isFile()) throw new Error(`"${path}" is not a regular file`);
        // Read only what we keep: a huge log must not be pulled into memory to show its head.
        const buffer = Buffer.alloc(Math.min(stats.size, maxBytes));
        const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
        const head = buffer.subarray(0, bytesRead);
        if (head.includes(0)) return `"${path}" looks binary (${stats.size} bytes); not shown`;
        const text = head.toString('utf8');
        return stats.size > maxBytes
          ? `${text}\n[truncated: file is ${stats.size} bytes, showing the first ${maxBytes}]`
          : text;
      } finally {
        await file.close();
      }
    },
  });
}
