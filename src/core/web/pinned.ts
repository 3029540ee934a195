import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import type { EgressGuard } from './egress.ts';
import type { WebTarget } from './url.ts';

/**
 * An undici dispatcher for ONE connection to `target`, pinned to `address`: its lookup answers with the
 * checked address only (never asks DNS again), TLS still uses the real host name (SNI and certificate
 * checks), and the connected socket's peer is checked again before a byte is written. Destroy it after
 * the response is read.
 */
export function pinnedAgent(options: {
  target: WebTarget;
  address: string;
  guard: EgressGuard;
  timeoutMs: number;
}): Agent {
  const { target, address, guard } = options;
  const family = isIP(address);
  const pinnedLookup = (
    _host: string,
    lookupOptions: { all?: boolean },
    callback: (...args: unknown[]) => void,
  ): void => {
    if (lookupOptions.all) callback(null, [{ address, family } satisfies LookupAddress]);
    else callback(null, address, family);
  };
  const connect = buildConnector({ timeout: options.timeoutMs, lookup: pinnedLookup as never });
  return new Agent({
    // One connection per request: a kept-alive socket must not carry the next hop's request.
    pipelining: 0,
    connect: (connectOptions, callback) => {
      connect(connectOptions, (error, socket) => {
        if (error || !socket) return callback(error ?? new Error('no socket'), null);
        try {
          guard.checkPeer(target, address, socket.remoteAddress);
        } catch (refusal) {
          socket.destroy();
          return callback(refusal as Error, null);
        }
        callback(null, socket);
      });
    },
  });
}
