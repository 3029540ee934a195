// The public face of core/mcp.
export { connectServer } from './connection.ts';
export { McpStartError, McpStdioRefusedError } from './errors.ts';
export { listServers } from './server-view.ts';
export { maskServer, plainSecrets, resolveSecrets, stashSecrets } from './secrets.ts';
export { serverRequestHandler } from './server-requests.ts';
export { McpRemoteServers, McpServerEditor, type RemoteMcpServer } from './server-settings.ts';
export { McpStateStore } from './state-store.ts';
export { tryServer, type Tried, type Vetted, vetServer } from './vet.ts';
export { watchMcp } from './watch.ts';
