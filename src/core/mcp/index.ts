// The public face of core/mcp.
export { McpStdioRefusedError } from './errors.ts';
export { listServers } from './server-view.ts';
export { maskServer } from './secrets.ts';
export { serverRequestHandler } from './server-requests.ts';
export { McpRemoteServers, McpServerEditor } from './server-settings.ts';
export { McpStateStore } from './state-store.ts';
export { tryServer, type Tried, vetServer } from './vet.ts';
export { watchMcp } from './watch.ts';
