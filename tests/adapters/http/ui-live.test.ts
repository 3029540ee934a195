// Live updates across processes: two Kazmas on one PostgreSQL, the page open on the first; a decision made
// by the second (another `kazma start`, or a worker) reaches the open page's event stream within a second,
// through LISTEN/NOTIFY, as a decision in its own process does through the outbox.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { kazmasOnOneDatabase } from '../../helpers/assembled.ts';
import { eventually } from '../../helpers/eventually.ts';

const MAYA_TOKEN = 'maya-web-token-0123456789abcdef';
const config = { access: { operators: [{ name: 'maya', telegram: '42', api_token: MAYA_TOKEN }] } };
const kazmas = kazmasOnOneDatabase('postgres');
const MAYA = { platform: 'telegram', id: '42', displayName: 'Maya' };

/** Reads an event stream as it comes; `next(name)` resolves at the next event of that name. */
function events(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      seen += decoder.decode(value);
    }
  })().catch(() => {});
  return {
    async next(name: string, timeoutMs: number): Promise<void> {
      const tag = `event: ${name}`;
      await eventually(
        async () => seen,
        (text) => text.includes(tag),
        `a ${name} event`,
        { timeoutMs, intervalMs: 10 },
      );
      seen = seen.slice(seen.indexOf(tag) + tag.length);
    },
    drain: () => {
      seen = '';
    },
    close: () => reader.cancel(),
  };
}

describe('the page across processes (PostgreSQL)', () => {
  it("another process's decision reaches an open page within a second", async () => {
    const a = await kazmas.start(config);
    const b = await kazmas.start(config);
    const base = `http://127.0.0.1:${a.kazma.http.port}`;
    const signedIn = await fetch(`${base}/ui/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: base },
      body: new URLSearchParams({ token: MAYA_TOKEN }),
    });
    const cookie = `kazma_ui=${/kazma_ui=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')?.[1]}`;
    const stream = events((await fetch(`${base}/ui/events`, { headers: { cookie } })).body!);
    await stream.next('ready', 5_000);
    const gate = await b.kazma.core.approvals.open({
      threadId: 'elsewhere',
      interruptId: 'elsewhere-1',
      chat: 'telegram:42',
      requester: MAYA,
      call: { kind: 'tool_approval', callId: 'c1', tool: 'launch', args: {}, tier: 'danger', reason: '' },
    });
    await stream.next('change', 1_000); // the card posted by the other process
    await new Promise((ok) => setTimeout(ok, 200));
    stream.drain();
    const started = performance.now();
    const decided = await b.kazma.core.approvals.decide({
      gateId: gate.gateId,
      decision: 'deny',
      actor: MAYA,
      reason: 'x',
    });
    expect(decided.ok).toBe(true);
    await stream.next('change', 1_000);
    expect(performance.now() - started).toBeLessThan(1_000);
    await stream.close();
  });
});
