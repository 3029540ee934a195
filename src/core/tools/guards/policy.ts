import type { Guard } from './guard.ts';

/**
 * Guard `policy`: the tool's own precheck (the shell policy and sandbox check, workspace paths, git's
 * own files for `write_file`, ...), as each tool declares it in `precheck`.
 *
 * Inputs: the tool, its validated arguments, the turn's ToolContext (workspace, env).
 * Refuses: whatever the precheck refuses, with its reason; a tool without a precheck passes.
 * Invariant: first in the list, so the cheapest and most specific reason reaches the model first, and
 * it reads only (the tool contract says a precheck changes nothing).
 */
export const policyGuard: Guard = {
  name: 'policy',
  async check({ tool, args }, ctx) {
    await tool.precheck?.(args, ctx);
  },
};
