import { createHash } from 'node:crypto';
import { MCP_PREFIX } from '../tools/index.ts';

const MAX_NAME = 64;

/**
 * The name the model calls: `mcp__<server>__<tool>`, with characters outside `[A-Za-z0-9_-]` turned
 * into `_`. A name past 64 characters (the OpenAI function-name limit) is cut and ends in a short hash
 * of the whole name, so two long tools of one server still get different names.
 *
 * @example
 * namespacedName('everything', 'get-sum') // 'mcp__everything__get-sum'
 */
export function namespacedName(server: string, tool: string): string {
  const full = `${MCP_PREFIX}${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

/** What a tool's name says it does: shown on approval cards; it never lets a call skip approval. */
export type McpToolKind = 'danger' | 'safe' | 'unknown';

const DANGER = new Set([
  'delete',
  'remove',
  'rm',
  'drop',
  'destroy',
  'purge',
  'truncate',
  'kill',
  'terminate',
  'exec',
  'execute',
  'run',
  'shell',
  'command',
  'eval',
  'write',
  'edit',
  'modify',
  'update',
  'patch',
  'put',
  'post',
  'create',
  'insert',
  'move',
  'rename',
  'push',
  'deploy',
  'send',
  'publish',
  'install',
  'uninstall',
  'set',
  'reset',
  'upload',
  'merge',
  'commit',
  'transfer',
  'pay',
  'grant',
]);
const SAFE = new Set([
  'get',
  'list',
  'read',
  'search',
  'find',
  'show',
  'describe',
  'view',
  'query',
  'status',
  'info',
  'echo',
  'sum',
  'tree',
  'stat',
  'stats',
  'lookup',
  'count',
  'fetch',
  'preview',
  'inspect',
  'check',
]);

/**
 * Classifies a tool by the words of its name (`get-sum`, `writeFile`, `list_directory`): any danger
 * word makes it `danger`, else any safe word `safe`, else `unknown`.
 */
export function classifyToolName(tool: string): McpToolKind {
  const words = tool
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.some((w) => DANGER.has(w))) return 'danger';
  if (words.some((w) => SAFE.has(w))) return 'safe';
  return 'unknown';
}
