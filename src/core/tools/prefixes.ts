/**
 * Tool names that say where a tool comes from. The registry's names are shared by the model, `/config`
 * and the MCP manager, so the prefix lives with the registry, not in the MCP module that uses it most.
 */

/** Every MCP tool's name starts with this, so the model and the operator can tell them from built-ins. */
export const MCP_PREFIX = 'mcp__';
