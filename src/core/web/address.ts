import ipaddr from 'ipaddr.js';

// ipaddr.js names every special range; only plain global unicast is the public internet.
const RANGE_WORDS: Readonly<Record<string, string>> = {
  loopback: 'a loopback',
  private: 'a private',
  linkLocal: 'a link-local (cloud metadata)',
  carrierGradeNat: 'a carrier-grade NAT',
  multicast: 'a multicast',
  broadcast: 'a broadcast',
  unspecified: 'an unspecified ("any")',
  reserved: 'a reserved',
  uniqueLocal: 'a unique-local (private IPv6)',
  ipv4Mapped: 'an IPv4-mapped/compatible IPv6',
  rfc6052: 'a NAT64 (IPv4-embedding)',
  '6to4': 'a 6to4 (IPv4-embedding)',
  teredo: 'a Teredo (IPv4-embedding)',
};

/**
 * What kind of non-public address `address` is (why a connection to it must not be made), or undefined when it is a
 * public unicast address. Classified by ipaddr.js, never by pattern: IPv4-mapped and IPv4-embedding IPv6 forms are
 * refused outright, since what they reach depends on the host's stack.
 *
 * @example
 * addressRefusal('169.254.169.254') // 'a link-local (cloud metadata) address, not a public one'
 * addressRefusal('93.184.215.14')   // undefined
 */
export function addressRefusal(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  const range = parsed.range();
  // ::/96 written in hex (`::7f00:1`) is IPv4-compatible — 127.0.0.1 — yet ipaddr.js calls it unicast;
  // only its dotted spelling (`::127.0.0.1`) reads as mapped. What it reaches depends on the host's stack.
  if (
    range === 'unicast' &&
    parsed.kind() === 'ipv6' &&
    (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)
  )
    return `${RANGE_WORDS.ipv4Mapped} address, not a public one`;
  if (range === 'unicast') return undefined;
  return `${RANGE_WORDS[range] ?? `a ${range}`} address, not a public one`;
}

/** True when `host` is an IP literal (either family, brackets allowed). */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(stripBrackets(host));
}

/** `[::1]` → `::1`; anything else as it is. */
export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
