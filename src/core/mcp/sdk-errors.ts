// The MCP SDK's error type, which server-requests.ts loads with a server's first request (a start without
// MCP servers never needs the SDK). A file of ours is the lazy import, not the package: the bundle links a
// package loaded by import() differently from a static import.
export { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
