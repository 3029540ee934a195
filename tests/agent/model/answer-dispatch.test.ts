// A chat answer whose words are wanted as they come is streamed by the model SDKs' fetch straight from
// undici's dispatcher (core/agent/model/answer-dispatch.ts), against a real local HTTP server: what fetch
// promises a model SDK still holds there — a compressed stream decoded, an error status handed over with
// its body, a redirect followed, an error event or an abort failing the call and closing the connection.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AnswerWords, withAnswerWords } from '../../../src/core/agent/model/answer-words.ts';
import { modelFetch } from '../../../src/core/agent/model/model-fetch.ts';
import { eventually } from '../../helpers/eventually.ts';

const event = (content: string) => `data: ${JSON.stringify({ id: 'c1', choices: [{ delta: { content } }] })}\n\n`;
const ANSWER = ['مرحبا ', '👋 ', 'world'];

let server: Server;
let base: string;
/** The requests' bodies, and whether each connection was closed by the client before its answer ended. */
const seen: Array<{ url: string; body: string; closedEarly?: boolean }> = [];

const routes: Record<string, (res: ServerResponse) => void> = {
  '/gzip': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
    res.end(gzipSync(`${ANSWER.map(event).join('')}data: [DONE]\n\n`));
  },
  '/limited': (res) =>
    res
      .writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' })
      .end('{"error":{"message":"slow down"}}'),
  '/moved': (res) => res.writeHead(307, { location: '/plain/chat/completions' }).end(),
  '/plain': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${ANSWER.map(event).join('')}data: [DONE]\n\n`);
  },
  '/not-streamed': (res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"c2","choices":[],"object":"x"}'),
  // The first words, then an error event, then a stream that would go on.
  '/error-event': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(event(ANSWER[0]!));
    setTimeout(() => res.write('data: {"error":{"message":"overloaded"}}\n\n'), 50);
  },
  // The first words, then nothing more until the client goes.
  '/slow': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(event(ANSWER[0]!));
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request: (typeof seen)[number] = { url: req.url!, body };
      seen.push(request);
      res.once('close', () => {
        if (!res.writableEnded) request.closedEarly = true;
      });
      routes[req.url!.replace('/chat/completions', '')]?.(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Asks `route` for a chat answer with its words told as they come; what was told, and how the call ended. */
function ask(route: string, signal?: AbortSignal) {
  const told: string[] = [];
  const words: AnswerWords = {
    readEveryMs: 100,
    begin: (call) => void told.push(`begin ${call.length}`),
    write: (_call, text) => void told.push(text),
    failed: () => void told.push('failed'),
    ended: () => void told.push('ended'),
  };
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body, ...(signal && { signal }) };
  const response = withAnswerWords(words, () => modelFetch(`${base}${route}/chat/completions`, init));
  return { response, told };
}

it('decodes a compressed stream, telling its words, and hands the answer over whole and decoded', async () => {
  const { response, told } = ask('/gzip');
  const res = await response;
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(res.headers.get('content-encoding')).toBeNull();
  const answer = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  expect(answer.choices[0]!.message.content).toBe(ANSWER.join(''));
  expect(told).toEqual(['begin 36', ...ANSWER, 'ended']);
  // The request asked for a stream with its usage.
  expect(JSON.parse(seen.at(-1)!.body)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
});

it('follows a redirect, and hands an error status or an answer that did not stream over as it came', async () => {
  const { response: moved, told } = ask('/moved');
  const answer = (await (await moved).json()) as { choices: Array<{ message: { content: string } }> };
  expect(answer.choices[0]!.message.content).toBe(ANSWER.join(''));
  expect(told.at(-1)).toBe('ended');
  // The redirect kept the method and the body (307).
  expect(seen.at(-1)).toMatchObject({ url: '/plain/chat/completions' });
  expect(JSON.parse(seen.at(-1)!.body)).toMatchObject({ stream: true });

  const limited = await ask('/limited').response;
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toBe('2');
  expect(await limited.json()).toEqual({ error: { message: 'slow down' } });

  const { response: whole, told: none } = ask('/not-streamed');
  expect(await (await whole).text()).toBe('{"id":"c2","choices":[],"object":"x"}');
  expect(none).toEqual([]);
});

it('an error event fails the call, tells the words so, and closes the connection', async () => {
  const { response, told } = ask('/error-event');
  await expect(response).rejects.toThrow("the model's stream reported an error: overloaded");
  expect(told).toEqual(['begin 36', ANSWER[0], 'failed']);
  await eventually(
    () => seen.at(-1)!,
    (request) => request.closedEarly === true,
    'the connection closed',
  );
});

it('an abort rejects with the signal’s reason, tells the words so, and closes the connection', async () => {
  const controller = new AbortController();
  const { response, told } = ask('/slow', controller.signal);
  await eventually(
    () => told,
    (all) => all.includes(ANSWER[0]!),
    'the first words',
  );
  const reason = new Error('turn stopped');
  controller.abort(reason);
  await expect(response).rejects.toBe(reason);
  expect(told).toEqual(['begin 36', ANSWER[0], 'failed']);
  await eventually(
    () => seen.at(-1)!,
    (request) => request.closedEarly === true,
    'the connection closed',
  );
  // Aborted before it was sent, it is never sent.
  const count = seen.length;
  await expect(ask('/plain', AbortSignal.abort(reason)).response).rejects.toBe(reason);
  expect(seen.length).toBe(count);
});
