// The public face of core/tools.
export { builtinTools } from './builtin/index.ts';
export { defineTool, type ToolContext, type ToolDefinition } from './define.ts';
export { fenceOutside } from './fence.ts';
export type { AuthorizeEffect } from './guards/authorization.ts';
export type { Guard } from './guards/guard.ts';
export { createGuardList, firstRefusal } from './guards/list.ts';
export { ToolRegistry } from './registry.ts';
export { checkCatastrophic } from './shell/catastrophic.ts';
export { gitEnv } from './shell/git-env.ts';
export { parseCommand } from './shell/parse.ts';
export { sandboxStatus } from './shell/sandbox-status.ts';
export { runContained, type ContainedOptions, type ContainedSettings } from './shell/contained.ts';
export { isSystem } from './shell/mounts.ts';
export { parseRunAs, SandboxProbes } from './shell/sandbox.ts';
export type { ToolSpec } from './specs.ts';
export { resolveInWorkspace, workspaceRoot } from './workspace.ts';
export { openInWorkspace } from './workspace-open.ts';
export { MCP_PREFIX } from './prefixes.ts';
