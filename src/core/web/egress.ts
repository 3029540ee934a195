import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { addressRefusal, isIpLiteral, stripBrackets } from './address.ts';
import { EgressRefused, WebFetchError } from './errors.ts';
import type { WebTarget } from './url.ts';

/** Resolves a host name to its addresses (both families). */
export type Resolve = (host: string) => Promise<string[]>;

/** The system resolver (`/etc/hosts`, then DNS), as every connection uses it unless told otherwise. */
export const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Options for {@link EgressGuard}. */
export interface EgressGuardOptions {
  /** `web.allow_private`: `host:port` entries (`[::1]:8080` for IPv6) that may be internal on purpose. Default none. */
  allowPrivate?: Iterable<string>;
  /** How names are resolved. Default {@link systemResolve}; tests pass one that asks a local DNS server. */
  resolve?: Resolve;
}

/**
 * Decides which address a connection may go to. `check` resolves the name ONCE and refuses when any
 * answer is not public unicast (a mixed answer is how rebinding starts), unless the exact `host:port`
 * is in `web.allow_private`; the address it returns is the one the connection is pinned to, so a DNS
 * answer that changes between check and connect is never asked for. `checkPeer` runs on the connected
 * socket: the peer must be that address.
 */
export class EgressGuard {
  readonly #allow: ReadonlySet<string>;
  readonly #resolve: Resolve;

  constructor(options: EgressGuardOptions = {}) {
    this.#allow = new Set([...(options.allowPrivate ?? [])].map(normaliseEntry));
    this.#resolve = options.resolve ?? systemResolve;
  }

  /** True when `target` is opened on purpose by `web.allow_private`. */
  allowsPrivate(target: WebTarget): boolean {
    return this.#allow.has(target.key);
  }

  /**
   * The checked address to connect to; throws {@link EgressRefused}, or {@link WebFetchError} when the name does not
   * resolve.
   */
  async check(target: WebTarget): Promise<string> {
    let addresses: string[];
    if (isIpLiteral(target.host)) addresses = [target.host];
    else {
      try {
        addresses = await this.#resolve(target.host);
      } catch (error) {
        throw new WebFetchError(
          `could not resolve "${target.host}": ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    }
    if (addresses.length === 0) throw new WebFetchError(`"${target.host}" has no address`);
    if (!this.allowsPrivate(target)) {
      for (const address of addresses) {
        const refusal = addressRefusal(address);
        const what =
          target.host === address ? `${address} is ${refusal}` : `"${target.host}" resolves to ${address}, ${refusal}`;
        if (refusal)
          throw new EgressRefused(
            target.url.href,
            `${what}; internal hosts are opened only by web.allow_private (${target.key} is not in it)`,
          );
      }
    }
    return addresses[0]!;
  }

  /** Refuses a connected socket whose peer is not the pinned address (or, unless allowed, not public). */
  checkPeer(target: WebTarget, pinned: string, peer: string | undefined): void {
    if (
      peer === undefined ||
      !ipaddr.isValid(peer) ||
      ipaddr.process(peer).toString() !== ipaddr.process(pinned).toString()
    ) {
      throw new EgressRefused(
        target.url.href,
        `the connection to "${target.host}" reached ${peer ?? 'an unknown peer'}, not the checked address ${pinned}`,
      );
    }
    const refusal = this.allowsPrivate(target) ? undefined : addressRefusal(peer);
    if (refusal) throw new EgressRefused(target.url.href, `the peer ${peer} is ${refusal}`);
  }
}

/** `Example.com:443` → `example.com:443`; `[::1]:80` → `::1:80` (the form WebTarget.key has). */
function normaliseEntry(entry: string): string {
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry.trim().toLowerCase());
  if (!match) return entry;
  const host = stripBrackets(match[1]!);
  return `${ipaddr.isValid(host) ? ipaddr.parse(host).toString() : host}:${match[2]}`;
}
