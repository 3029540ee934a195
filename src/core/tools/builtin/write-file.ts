import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { RefusedBeforeEffect } from '../../effects/refused.ts';
import { defineTool, type ToolContext } from '../define.ts';
import { resolveInWorkspace, workspaceRoot } from '../workspace.ts';

/** `write_file` (danger, effects): creates or replaces (or appends to) a file in the workspace. */
export function writeFileTool() {
  return defineTool({
    name: 'write_file',
    description: 'Create or overwrite a text file in the workspace (parent directories are created). Set append to add to the end instead.',
    input: z.object({
      path: z.string().min(1).describe('File path relative to the workspace'),
      content: z.string().describe('The full text to write'),
      append: z.boolean().default(false).describe('Append instead of replacing'),
    }),
    tier: 'danger',
    effects: true,
    precheck({ path: target }, ctx) {
      writableFile(ctx, target);
    },
    async run({ path: target, content, append }, ctx) {
      const file = writableFile(ctx, target);
      await mkdir(path.dirname(file), { recursive: true });
      if (append) await appendFile(file, content, 'utf8');
      else await writeFile(file, content, 'utf8');
      return `${append ? 'appended' : 'wrote'} ${Buffer.byteLength(content)} bytes to ${target}`;
    },
  });
}

function writableFile(ctx: ToolContext, target: string): string {
  const root = workspaceRoot(ctx.workspace);
  const file = resolveInWorkspace(root, target);
  if (file === root) throw new RefusedBeforeEffect('the path names the workspace itself, not a file');
  // Writing git's own files (config, hooks) would make the next git command run a program.
  if (path.relative(root, file).split(path.sep).includes('.git')) {
    throw new RefusedBeforeEffect(`"${target}" is inside a .git directory; change the repository with git commands instead`);
  }
  return file;
}
