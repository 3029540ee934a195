import type { LoadedConfig } from '../config/index.ts';
import type { ToolDefinition, Guard } from '../tools/index.ts';
import { EgressGuard, type Resolve } from './egress.ts';
import { webFetchTool } from './fetch-tool.ts';
import { egressGuard } from './guard.ts';
import { webSearchTool } from './search-tool.ts';

/** What {@link createWeb} needs. */
export interface WebDeps {
  loaded: LoadedConfig;
  /** How host names are resolved. Default: the system resolver. */
  resolve?: Resolve;
}

/** The web module: its tools and the `egress` guard for the guard list. */
export interface WebModule {
  tools: ToolDefinition[];
  guard: Guard;
}

/**
 * `web_fetch` always; `web_search` only when `web.search.provider` is set (a tool with nowhere to
 * search is not offered). Both go through one {@link EgressGuard} built from `web.allow_private`.
 */
export function createWeb({ loaded, resolve }: WebDeps): WebModule {
  const web = loaded.config.web;
  const guard = new EgressGuard({ allowPrivate: web.allow_private, ...(resolve && { resolve }) });
  const common = { guard, maxBytes: web.max_bytes, timeoutMs: web.timeout, requireApproval: web.require_approval };
  const tools: ToolDefinition[] = [webFetchTool(common)];
  if (web.search.provider) tools.push(webSearchTool({ ...common, search: web.search }));
  return { tools, guard: egressGuard(guard) };
}
