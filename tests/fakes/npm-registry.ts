// A small, honest fake of an npm registry: real HTTP on 127.0.0.1 serving what the real npm client asks
// for when it packs a registry spec — a package's packument (`GET /<name>`) and its tarball — so tests of
// installs from the registry never reach the internet. Tarballs are made by the real `npm pack`.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeNpmRegistry {
  /** e.g. `http://127.0.0.1:PORT/`: the value for `npm_config_registry`. */
  url: string;
  /** Packs `dir` (its scripts off) and serves it under its package.json name and version. */
  publish(dir: string): void;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

interface Published {
  name: string;
  version: string;
  tarball: Buffer;
}

export async function startFakeNpmRegistry(): Promise<FakeNpmRegistry> {
  const packages = new Map<string, Published[]>();
  const requests: string[] = [];
  let url = '';
  const packument = (name: string, versions: Published[]) => ({
    name,
    'dist-tags': { latest: versions.at(-1)!.version },
    versions: Object.fromEntries(
      versions.map((p) => [
        p.version,
        {
          name,
          version: p.version,
          dist: {
            tarball: `${url}${name}/-/${name.split('/').at(-1)}-${p.version}.tgz`,
            shasum: createHash('sha1').update(p.tarball).digest('hex'),
            integrity: `sha512-${createHash('sha512').update(p.tarball).digest('base64')}`,
          },
        },
      ]),
    ),
  });
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!).slice(1);
    requests.push(path);
    const [name, tarball] = path.split('/-/');
    const versions = packages.get(name!);
    if (!versions) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    if (tarball === undefined)
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(packument(name!, versions)));
    const found = versions.find((p) => tarball === `${name!.split('/').at(-1)}-${p.version}.tgz`);
    if (!found) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(found.tarball);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    requests,
    publish(dir) {
      const out = mkdtempSync(join(tmpdir(), 'fake-npm-'));
      try {
        const [packed] = JSON.parse(
          execFileSync('npm', ['pack', dir, '--ignore-scripts', '--json', '--pack-destination', out], {
            env: { PATH: process.env.PATH, HOME: out },
          }).toString(),
        ) as Array<{ name: string; version: string; filename: string }>;
        const entry = {
          name: packed!.name,
          version: packed!.version,
          tarball: readFileSync(join(out, packed!.filename)),
        };
        packages.set(entry.name, [...(packages.get(entry.name) ?? []), entry]);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
