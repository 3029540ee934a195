import { RefusedBeforeEffect } from '../effects/index.ts';
import { parseCommand, checkCatastrophic, type Guard, workspaceRoot } from '../tools/index.ts';
import path from 'node:path';

/**
 * Settings no tool call may change, whatever the approval: who may talk and decide (`access`,
 * `approvals`), what tools exist (`tools`), the commitment layer's own (`outbound`), and what the model is
 * told and which model answers (`prompt`, `model`: `/config prompt`, `/config model`). A person changes them
 * in kazma.yaml or with an operator's command, never through the model.
 */
export const PROTECTED_SETTINGS = ['access', 'approvals', 'tools', 'outbound', 'prompt', 'model'] as const;

/** True when `key` (`access.users`, `tools`) is or lies under a protected setting. */
export function isProtectedSetting(key: string): boolean {
  const normalised = key.trim().toLowerCase();
  return PROTECTED_SETTINGS.some(
    (root) => normalised === root || normalised.startsWith(`${root}.`) || normalised.startsWith(`${root}[`),
  );
}

/**
 * Guard `commitment`: refuses, before any card, the calls no approval can make acceptable — a change
 * to a protected setting (as the tool declares in `settings`), and a catastrophic shell command
 * (`rm -rf /`, `mkfs`, …). Reads only.
 */
export const commitmentGuard: Guard = {
  name: 'commitment',
  check({ tool, args }, ctx) {
    for (const key of tool.settings?.(args) ?? []) {
      if (isProtectedSetting(key)) {
        throw new RefusedBeforeEffect(
          `"${key}" is a protected setting (${PROTECTED_SETTINGS.join(', ')}); no tool call may change it, whatever ` +
            `the approval. An operator changes it in kazma.yaml`,
        );
      }
    }
    if (tool.name === 'shell' && typeof args.command === 'string') {
      const [given = '', ...rest] = parseCommand(args.command);
      checkCatastrophic(path.basename(given), rest, workspaceRoot(ctx.workspace));
    }
  },
};
