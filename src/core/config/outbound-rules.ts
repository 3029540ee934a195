import { isChatRef } from '../surface/index.ts';
import type { KazmaConfig } from './schema.ts';

/** `outbound.*` rules: every allowed target is an alias or a chat, so a typo is caught at start, not guessed at. */
export function outboundConfigIssues(config: KazmaConfig): string[] {
  const { targets, allow_targets: allowed } = config.outbound;
  return allowed.flatMap((entry, i) =>
    Object.hasOwn(targets, entry) || isChatRef(entry)
      ? []
      : [
          `outbound.allow_targets[${i}]: "${entry}" is neither an alias in outbound.targets ` +
            `(${Object.keys(targets).join(', ') || 'none'}) nor a chat such as "slack:C0123"`,
        ],
  );
}
