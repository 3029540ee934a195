// The fake server itself, spoken to over plain HTTP, so its wire format is checked independently of
// the client that other tests drive through it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.close();
});

const post = (body: object): Promise<Response> =>
  fetch(`${llm.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('fake LLM server', () => {
  it('echoes the last user message, and answers a tool result with done:', async () => {
    const a = await (
      await post({
        model: 'm',
        messages: [
          { role: 'user', content: 'one' },
          { role: 'user', content: 'two' },
        ],
      })
    ).json();
    expect(a.choices[0].message.content).toBe('echo: two');
    expect(a.choices[0].finish_reason).toBe('stop');
    const b = await (
      await post({
        model: 'm',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', tool_call_id: 'c1', content: 'ok' },
        ],
      })
    ).json();
    expect(b.choices[0].message.content).toBe('done: ok');
    expect(llm.requests).toHaveLength(2);
  });

  it('plays scripted steps in order, then the default', async () => {
    llm.script({ toolCalls: [{ name: 'ls', args: { dir: '/' }, id: 'call_a' }] }, (body) => ({
      text: `n=${body.messages?.length}`,
    }));
    const first = await (await post({ messages: [{ role: 'user', content: 'a' }] })).json();
    expect(first.choices[0].message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'ls', arguments: '{"dir":"/"}' } },
    ]);
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect((await (await post({ messages: [{ role: 'user', content: 'a' }] })).json()).choices[0].message.content).toBe(
      'n=1',
    );
    expect((await (await post({ messages: [{ role: 'user', content: 'z' }] })).json()).choices[0].message.content).toBe(
      'echo: z',
    );
  });

  it('streams SSE chunks with tool call deltas, a usage chunk and [DONE]', async () => {
    llm.script({ toolCalls: [{ name: 'ls', args: { dir: '/tmp' } }] });
    const res = await post({
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'a' }],
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    const args = chunks
      .flatMap((c) =>
        c.choices.flatMap(
          (ch: { delta: { tool_calls?: Array<{ function: { arguments: string } }> } }) => ch.delta.tool_calls ?? [],
        ),
      )
      .map((t: { function: { arguments: string } }) => t.function.arguments)
      .join('');
    expect(JSON.parse(args)).toEqual({ dir: '/tmp' });
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
    expect(chunks.at(-1).choices).toEqual([]);
    expect(chunks.at(-1).usage.total_tokens).toBeGreaterThan(0);
  });

  it('injects failures with OpenAI-shaped bodies and headers, and counts them', async () => {
    llm.failNext(1, { status: 429, headers: { 'retry-after': '1' } });
    const res = await post({ messages: [] });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await res.json()).error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect((await post({ messages: [{ role: 'user', content: 'k' }] })).status).toBe(200);
    expect(llm.attempts.map((a) => a.outcome)).toEqual(['failed', 'ok']);
  });

  it('lists a model', async () => {
    const body = await (await fetch(`${llm.baseURL}/models`)).json();
    expect(body.data[0]).toMatchObject({ id: 'fake-model', object: 'model' });
  });

  it('runs as a separate process, prints LISTENING <port>, and plays a --script file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kazma-fake-llm-'));
    const file = join(dir, 'script.json');
    writeFileSync(file, JSON.stringify([{ text: 'from the script' }]));
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/fakes/llm-server.ts', '--script', file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (d: string) => {
          out += d;
          const m = /LISTENING (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', (code) => reject(new Error(`fake exited early (${code}): ${out}`)));
      });
      const ask = async (content: string): Promise<string> => {
        const r = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ messages: [{ role: 'user', content }] }),
        });
        return (await r.json()).choices[0].message.content;
      };
      expect(await ask('hi')).toBe('from the script');
      expect(await ask('again')).toBe('echo: again');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
