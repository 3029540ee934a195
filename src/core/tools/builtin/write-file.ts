import { constants } from 'node:fs';
import { z } from 'zod';
import { RefusedBeforeEffect } from '../../effects/index.ts';
import { defineTool, type ToolContext } from '../define.ts';
import { gitFileReasonResolved } from '../git-files.ts';
import { openInWorkspace } from '../workspace-open.ts';
import { resolveInWorkspace, workspaceRoot } from '../workspace.ts';

/** `write_file` (danger, effects): creates or replaces (or appends to) a file in the workspace. */
export function writeFileTool() {
  return defineTool({
    name: 'write_file',
    description:
      'Create or overwrite a text file in the workspace (parent directories are created). Set append to add to the ' +
      'end instead.',
    input: z.object({
      path: z.string().min(1).describe('File path relative to the workspace'),
      content: z.string().describe('The full text to write'),
      append: z.boolean().default(false).describe('Append instead of replacing'),
    }),
    tier: 'danger',
    effects: true,
    outside: false,
    precheck({ path: target }, ctx) {
      writableFile(ctx, target);
    },
    async run({ path: target, content, append }, ctx) {
      const { root, file } = writableFile(ctx, target);
      const flags = constants.O_WRONLY | constants.O_CREAT | (append ? constants.O_APPEND : constants.O_TRUNC);
      // Opened by walking down from the root: a directory swapped for a link since the check is refused, not followed.
      const handle = await openInWorkspace(root, file, { flags, createParents: true });
      try {
        await handle.writeFile(content, 'utf8');
      } finally {
        await handle.close();
      }
      return `${append ? 'appended' : 'wrote'} ${Buffer.byteLength(content)} bytes to ${target}`;
    },
  });
}

function writableFile(ctx: ToolContext, target: string): { root: string; file: string } {
  const root = workspaceRoot(ctx.workspace);
  const file = resolveInWorkspace(root, target);
  if (file === root) throw new RefusedBeforeEffect('the path names the workspace itself, not a file');
  // git's own files (config, hooks, attributes) name programs git runs on the next command.
  const gitFile = gitFileReasonResolved(root, file, target);
  if (gitFile) throw new RefusedBeforeEffect(gitFile);
  return { root, file };
}
