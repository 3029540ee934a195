// The model SDKs' fetch (core/agent/model/model-fetch.ts) against a real local HTTP server: what a model SDK
// relies on of fetch, kept over undici's request API.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';

/** Imported once warnings are listened to: a module may warn as it loads. */
let modelFetch: typeof fetch;

let server: Server;
let base: string;
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
/** Process warnings while these calls ran: Kazma's log must not carry one per start (undici's decoder was experimental and said so). */
const warnings: Error[] = [];
const onWarning = (warning: Error) => void warnings.push(warning);

const routes: Record<string, (res: ServerResponse) => void> = {
  '/json': (res) =>
    res
      .writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] })
      .end('{"ok":true,"text":"مرحبا 👋"}'),
  '/gzip': (res) =>
    res
      .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      .end(gzipSync('{"zipped":true}')),
  '/gzip-stream': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
    res.end(gzipSync('data: zipped\n\n'));
  },
  '/moved': (res) => res.writeHead(307, { location: '/json' }).end(),
  '/empty': (res) => res.writeHead(204).end(),
  '/error': (res) =>
    res
      .writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' })
      .end('{"error":{"message":"slow down"}}'),
  '/stream': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: one\n\n');
    // The second event comes later: a stream is handed over before the answer ends.
    setTimeout(() => res.end('data: two\n\n'), 200);
  },
  '/hang': () => undefined,
};

beforeAll(async () => {
  process.on('warning', onWarning);
  ({ modelFetch } = await import('../../../src/core/agent/model/model-fetch.ts'));
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      routes[req.url!]?.(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  process.off('warning', onWarning);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('sends the method, headers and body, and answers with status, every header and the body intact', async () => {
  const res = await modelFetch(`${base}/json`, {
    method: 'post',
    headers: new Headers({ 'content-type': 'application/json', 'x-api-key': 'k' }),
    body: '{"q":"سلام"}',
  });
  expect(seen.at(-1)).toMatchObject({
    method: 'POST',
    url: '/json',
    body: '{"q":"سلام"}',
    headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
  });
  expect(res.status).toBe(200);
  expect(res.ok).toBe(true);
  expect(res.headers.get('set-cookie')).toBe('a=1, b=2');
  expect(await res.json()).toEqual({ ok: true, text: 'مرحبا 👋' });
});

it('follows a redirect, decodes a compressed answer, and gives an error status with its body', async () => {
  expect(await (await modelFetch(`${base}/moved`, {})).json()).toEqual({ ok: true, text: 'مرحبا 👋' });
  const zipped = await modelFetch(`${base}/gzip`, {});
  // Asked for no coding; one sent anyway is decoded, and the Response says nothing of it (as fetch's).
  expect(seen.at(-1)!.headers['accept-encoding']).toBe('identity');
  expect(zipped.headers.get('content-encoding')).toBeNull();
  expect(await zipped.json()).toEqual({ zipped: true });
  const refused = await modelFetch(`${base}/error`, { method: 'POST', body: '{}' });
  expect([refused.status, refused.ok, refused.headers.get('retry-after')]).toEqual([429, false, '2']);
  expect(await refused.json()).toEqual({ error: { message: 'slow down' } });
  const empty = await modelFetch(`${base}/empty`, {});
  expect([empty.status, empty.body]).toEqual([204, null]);
});

it('a whole answer is read once, by any of the ways fetch offers, and its body stream may be looked at first', async () => {
  const once = await modelFetch(`${base}/json`, {});
  expect(once.bodyUsed).toBe(false);
  expect(await once.text()).toBe('{"ok":true,"text":"مرحبا 👋"}');
  expect(once.bodyUsed).toBe(true);
  await expect(once.json()).rejects.toThrow(TypeError);
  await expect(once.arrayBuffer()).rejects.toThrow(TypeError);
  // The Anthropic SDK looks at `body` on every answer, then reads the answer with json().
  const looked = await modelFetch(`${base}/json`, {});
  expect(looked.body).toBe(looked.body);
  expect(await looked.json()).toEqual({ ok: true, text: 'مرحبا 👋' });
  // Read through its stream, the body is used up, as fetch's is.
  const streamed = await modelFetch(`${base}/json`, {});
  const reader = streamed.body!.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"ok":true,"text":"مرحبا 👋"}');
  expect(streamed.bodyUsed).toBe(true);
  await expect(streamed.json()).rejects.toThrow(TypeError);
  const bytes = await modelFetch(`${base}/json`, {});
  expect(new TextDecoder().decode(await bytes.arrayBuffer())).toBe('{"ok":true,"text":"مرحبا 👋"}');
  const blob = await (await modelFetch(`${base}/json`, {})).blob();
  expect([blob.type, await blob.text()]).toEqual(['application/json', '{"ok":true,"text":"مرحبا 👋"}']);
});

it('hands an event stream over as a stream, before it ends', async () => {
  const res = await modelFetch(`${base}/stream`, {});
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const first = await reader.read();
  expect(decoder.decode(first.value)).toBe('data: one\n\n');
  let rest = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value);
  expect(rest).toBe('data: two\n\n');
  expect(await (await modelFetch(`${base}/gzip-stream`, {})).text()).toBe('data: zipped\n\n');
});

it('an aborted call rejects with the signal’s reason, as fetch does; a refused connection and credentials in the URL reject', async () => {
  const controller = new AbortController();
  const call = modelFetch(`${base}/hang`, { signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  const reason = new Error('turn stopped');
  await expect(modelFetch(`${base}/hang`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  await expect(modelFetch('http://127.0.0.1:1/v1/chat/completions', {})).rejects.toMatchObject({
    code: 'ECONNREFUSED',
  });
  await expect(modelFetch(`${base.replace('://', '://user:hunter22@')}/json`, {})).rejects.toThrow(/credentials/);
});

it('prints no process warning doing any of that', async () => {
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
});
