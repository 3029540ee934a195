import type { Guard } from '../tools/index.ts';
import type { EgressGuard } from './egress.ts';
import { parseWebUrl } from './url.ts';

/**
 * Guard `egress`: for a tool that names the URLs it will reach (`egress` in its definition), each URL's
 * spelling, secrets and resolved addresses are checked before an approval card exists and again right
 * before the call runs. Reads only (a DNS lookup); the connection itself is checked again and pinned
 * in the web client, hop by hop, since a name may answer differently by then.
 */
export function egressGuard(guard: EgressGuard): Guard {
  return {
    name: 'egress',
    async check({ tool, args }, ctx) {
      for (const url of tool.egress?.(args) ?? []) {
        await guard.check(parseWebUrl(url, { secrets: ctx.secrets ?? [], env: ctx.env }));
      }
    },
  };
}
