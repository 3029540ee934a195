// The public face of core/mcp.
export { connectServer } from './connection.ts';
export { McpStartError } from './errors.ts';
export { listServers } from './server-view.ts';
export { maskServer, plainSecrets, resolveSecrets, stashSecrets } from './secrets.ts';
export { serverRequestHandler } from './server-requests.ts';
export { McpServerEditor } from './server-settings.ts';
export { McpStateStore } from './state-store.ts';
export { watchMcp } from './watch.ts';
