// The connection goes to the address that was checked: a name whose DNS answer changes after the
// check is not looked up again at connect time, and a socket whose peer is not the checked address is
// refused before a byte is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { egressRequest } from '../../src/core/web/client.ts';
import { EgressGuard } from '../../src/core/web/egress.ts';
import { EgressRefused } from '../../src/core/web/errors.ts';
import { parseWebUrl } from '../../src/core/web/url.ts';
import { startDns, startInternal, startSite, type TestDns, type TestServer } from './servers.ts';

let site: TestServer;
let internal: TestServer;
let dns: TestDns;

beforeAll(async () => {
  site = await startSite({ host: '127.0.0.1' });
  // The same port on another loopback address: only the address tells the two apart.
  internal = await startInternal({ host: '127.0.0.2', port: site.port });
  dns = await startDns((name, n) => (name === 'flip.test' ? [n === 0 ? '127.0.0.1' : '127.0.0.2'] : []));
});
afterAll(async () => {
  await Promise.all([site.close(), internal.close(), dns.close()]);
});

describe('pinning', () => {
  it('asks DNS once and connects to the checked address, though the name now answers another', async () => {
    const guard = new EgressGuard({ allowPrivate: [`flip.test:${site.port}`], resolve: (host) => dns.resolve(host) });
    const res = await egressRequest(`http://flip.test:${site.port}/plain`, {
      guard,
      maxBytes: 10_000,
      timeoutMs: 3000,
    });
    expect(res.body.toString()).toBe('just text');
    expect(dns.queries.filter((q) => q === 'flip.test')).toEqual(['flip.test']);
    expect(await dns.resolve('flip.test')).toEqual(['127.0.0.2']); // the answer has changed by now
    expect(site.hits).toEqual(['GET /plain']);
    expect(internal.hits).toEqual([]);
  });

  it('refuses a connected peer that is not the checked address, or is internal and not allowed', () => {
    const guard = new EgressGuard();
    const target = parseWebUrl('https://example.com/');
    expect(() => guard.checkPeer(target, '93.184.215.14', '93.184.215.14')).not.toThrow();
    expect(() => guard.checkPeer(target, '93.184.215.14', '127.0.0.1')).toThrow(EgressRefused);
    expect(() => guard.checkPeer(target, '10.0.0.1', '10.0.0.1')).toThrow(/the peer 10\.0\.0\.1 is a private address/);
  });

  it('the connector checks the peer before a byte is written: a refused peer gets no request', async () => {
    class RefusingGuard extends EgressGuard {
      override checkPeer(
        target: Parameters<EgressGuard['checkPeer']>[0],
        _pinned: string,
        peer: string | undefined,
      ): void {
        throw new EgressRefused(target.url.href, `the peer ${peer} is refused by this test`);
      }
    }
    const guard = new RefusingGuard({ allowPrivate: [`127.0.0.1:${site.port}`] });
    const before = site.hits.length;
    await expect(egressRequest(`${site.origin}/plain`, { guard, maxBytes: 10_000, timeoutMs: 3000 })).rejects.toThrow(
      /the peer 127\.0\.0\.1 is refused by this test/,
    );
    expect(site.hits.length).toBe(before);
  });

  it('follows at most 5 redirects, each through the checks', async () => {
    const guard = new EgressGuard({ allowPrivate: [`127.0.0.1:${site.port}`] });
    let url = '/plain';
    for (let i = 0; i < 6; i++) url = `/redirect?to=${encodeURIComponent(url)}`;
    await expect(egressRequest(`${site.origin}${url}`, { guard, maxBytes: 10_000, timeoutMs: 3000 })).rejects.toThrow(
      /more than 5 redirects/,
    );
  });
});
