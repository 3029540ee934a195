import type { ToolDefinition } from '../define.ts';
import { currentTimeTool, type CurrentTimeOptions } from './current-time.ts';
import { listFilesTool, type ListFilesOptions } from './list-files.ts';
import { readFileTool, type ReadFileOptions } from './read-file.ts';
import { shellTool, type ShellToolOptions } from './shell.ts';
import { writeFileTool } from './write-file.ts';

export { currentTimeTool, listFilesTool, readFileTool, shellTool, writeFileTool };
export type { CurrentTimeOptions, ListFilesOptions, ReadFileOptions, ShellToolOptions };

/** Options for {@link builtinTools}, one block per tool; every field has a default. */
export interface BuiltinToolsOptions {
  time?: CurrentTimeOptions;
  listFiles?: ListFilesOptions;
  readFile?: ReadFileOptions;
  shell?: ShellToolOptions;
}

/**
 * The tools Kazma ships with: `current_time`, `list_files`, `read_file` (safe) and `write_file`,
 * `shell` (danger). The workspace comes from each call's context, not from here.
 *
 * @example
 * for (const tool of builtinTools({ time: { zone: config.time.zone } })) registry.register(tool);
 */
export function builtinTools(options: BuiltinToolsOptions = {}): ToolDefinition[] {
  return [
    currentTimeTool(options.time),
    listFilesTool(options.listFiles),
    readFileTool(options.readFile),
    writeFileTool(),
    shellTool(options.shell),
  ];
}
