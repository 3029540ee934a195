// Outside text cannot freeze Kazma: a 22 KB page of 2,000 nested <div>s kept Readability busy on the main
// thread for 47 s, and /healthz stopped answering. The page is now read in a worker thread with a deadline
// and a memory limit; past either, web_fetch returns the page's plain text and says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readablePage } from '../../src/core/web/extract.ts';
import { plainTextOfHtml } from '../../src/core/web/html-text.ts';
import { startAssembled } from '../helpers/assembled.ts';
import { startServer, type TestServer } from './servers.ts';

const DEPTH = 2_000;
const DEEP = `<html><head><title>Deep</title></head><body>${'<div>'.repeat(DEPTH)}deep text${'</div>'.repeat(DEPTH)}</body></html>`;

let site: TestServer;
beforeAll(async () => {
  site = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(DEEP);
  });
});
afterAll(async () => {
  await site.close();
});

describe('a page built to be slow to read', () => {
  it('web_fetch answers with its plain text while /healthz keeps answering', { timeout: 120_000 }, async () => {
    const k = await startAssembled({ web: { allow_private: [`127.0.0.1:${site.port}`], timeout: '5s' } });
    try {
      const health = `http://127.0.0.1:${k.kazma.http.port}/healthz`;
      // A probe every 25 ms (Kazma runs in this process: a blocked main thread holds each probe up).
      const slowest = { ms: 0, failed: 0 };
      const probe = setInterval(() => {
        const started = performance.now();
        void fetch(health).then(
          async (res) => {
            await res.arrayBuffer();
            if (res.status !== 200) slowest.failed++;
            slowest.ms = Math.max(slowest.ms, performance.now() - started);
          },
          () => slowest.failed++,
        );
      }, 25);
      const result = await k.kazma.core.tools.execute(
        'web_fetch',
        { url: `${site.origin}/deep` },
        { workspace: k.workspace, env: {}, secrets: [] },
      );
      clearInterval(probe);
      expect(result.ok).toBe(true);
      const text = JSON.stringify(result);
      expect(text).toContain('could not be read for its main content');
      expect(text).toContain('deep text');
      // The old main-thread read kept /healthz waiting for the whole 47 s. The goal is 100 ms on a
      // quiet machine; this bound leaves room for the other test files sharing two cores in CI.
      expect(slowest).toEqual({ ms: expect.any(Number), failed: 0 });
      expect(slowest.ms).toBeLessThan(1_000);
    } finally {
      await k.close();
    }
  });

  it('past the memory limit, the plain text and why', async () => {
    const big = `<html><body>${'<p>word '.repeat(200_000)}</body></html>`;
    const page = await readablePage(big, 'text/html', { timeoutMs: 30_000, memoryMb: 8 });
    expect(page.text).toMatch(/^\[the page could not be read for its main content \(it needed over 8 MB\)/);
    expect(page.text).toContain('word word');
  });

  it('the plain-text reader drops script contents, whatever the case or the letters before them', () => {
    // `İ` lowercases to two code units: positions taken from a lowercased copy would point elsewhere.
    expect(plainTextOfHtml('İİİ<SCRIPT>steal()</Script><p>ok &amp; fine</p>')).toBe('İİİ ok & fine');
    expect(plainTextOfHtml('<style>p{}</style>a&#128512;b&#99999999;')).toBe('a😀b&#99999999;');
  });

  it('an ordinary page is read for its main content, in the worker', async () => {
    const page = await readablePage(
      '<html><head><title>Hi</title></head><body><p>One</p><p>Two</p></body></html>',
      'text/html',
    );
    expect(page).toEqual({ title: 'Hi', text: 'One\nTwo' });
  });
});
