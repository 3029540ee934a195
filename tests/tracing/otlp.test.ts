// OpenTelemetry traces from what users run: `kazma chat` (the built CLI, its own process) with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver in this test. A turn is one span, its model
// call and its tool call are its children (GenAI names and attributes); tool arguments leave only with
// `tracing.content: true`; with no endpoint set nothing is sent.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { writeConfig } from '../agent/helpers/spawn.ts';
import { seedPgliteDataDir } from '../helpers/databases.ts';
import { KazmaProcess } from '../helpers/kazma-process.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

let llm: FakeLlm;
let receiver: Server;
let endpoint: string;
let dir: string;
const received: Array<{ path: string; spans: OtlpSpan[] }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kazma-otlp-'));
  llm = await startFakeLlm();
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const parsed = JSON.parse(body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      const spans = parsed.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
      received.push({ path: req.url ?? '', spans });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await llm.close();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** One `kazma chat` turn in which the model reads a file, then answers; the process exits at end of input. */
async function chatOnce(
  name: string,
  env: Record<string, string | undefined>,
  tracing: Record<string, unknown> = {},
  turn: { call: { name: string; args: Record<string, unknown> }; lines: string[] } = {
    call: { name: 'list_files', args: { path: '.' } },
    lines: ['what is in my folder?'],
  },
) {
  await seedPgliteDataDir(join(dir, name));
  const workspace = join(dir, `${name}-workspace`);
  const path = writeConfig(dir, `${name}.yaml`, {
    data_dir: join(dir, name),
    http: { port: 0 },
    tools: { workspace },
    model: { name: 'fake-model', base_url: llm.baseURL },
    access: { operators: [{ name: 'maya', console: 'maya' }] },
    tracing,
  });
  llm.script({ toolCalls: [turn.call] }, { text: 'Nothing there.' });
  const kazma = new KazmaProcess(['chat', '--config', path], {
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined, ...env },
  });
  kazma.child.stdin!.end(`${turn.lines.join('\n')}\n`);
  const { code } = await kazma.exited;
  expect(code, kazma.stderr).toBe(0);
  expect(kazma.stdout).toContain('Nothing there.');
}

const attr = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

describe('OpenTelemetry traces', () => {
  it('one span per turn, with the model call and the tool call as its children; no content by default', async () => {
    received.length = 0;
    await chatOnce('traced', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    const spans = received.flatMap((r) => r.spans);
    expect(received.every((r) => r.path === '/v1/traces')).toBe(true);
    const turns = spans.filter((s) => s.name === 'invoke_agent kazma');
    expect(turns).toHaveLength(1);
    const turn = turns[0]!;
    expect(attr(turn, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(attr(turn, 'kazma.turn.outcome')).toBe('answered');
    expect(attr(turn, 'kazma.platform')).toBe('console'); // the same label as kazma_turns_total's
    const models = spans.filter((s) => s.name === 'chat fake-model');
    expect(models).toHaveLength(2);
    for (const model of models) {
      expect(model.parentSpanId).toBe(turn.spanId);
      expect(model.traceId).toBe(turn.traceId);
      expect(attr(model, 'gen_ai.provider.name')).toBe('openai');
      expect(attr(model, 'gen_ai.request.model')).toBe('fake-model');
      expect(Number(attr(model, 'gen_ai.usage.input_tokens'))).toBeGreaterThan(0);
      expect(attr(model, 'kazma.output.text')).toBeUndefined();
    }
    const [tool] = spans.filter((s) => s.name === 'execute_tool list_files');
    expect(tool?.parentSpanId).toBe(turn.spanId);
    expect(attr(tool!, 'gen_ai.tool.name')).toBe('list_files');
    expect(attr(tool!, 'kazma.tool.outcome')).toBe('ok');
    expect(attr(tool!, 'gen_ai.tool.call.arguments')).toBeUndefined();
  });

  it('tracing.content: true adds tool arguments and answers', async () => {
    received.length = 0;
    await chatOnce('content', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }, { content: true });
    const spans = received.flatMap((r) => r.spans);
    const tool = spans.find((s) => s.name === 'execute_tool list_files')!;
    expect(attr(tool, 'gen_ai.tool.call.arguments')).toBe('{"path":"."}');
    expect(spans.some((s) => attr(s, 'kazma.output.text') === 'Nothing there.')).toBe(true);
  });

  it('an approval: its wait is a span from the gate opening to the decision; the drives are two turns', async () => {
    received.length = 0;
    const call = { name: 'write_file', args: { path: 'a.txt', content: 'hi' } };
    await chatOnce('approval', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }, {}, { call, lines: ['write it', 'o'] });
    const spans = received.flatMap((r) => r.spans);
    const waits = spans.filter((s) => s.name === 'kazma.approval.wait');
    expect(waits.map((w) => [attr(w, 'gen_ai.tool.name'), attr(w, 'kazma.approval.outcome')])).toEqual([
      ['write_file', 'once'],
    ]);
    const turns = spans.filter((s) => s.name === 'invoke_agent kazma').map((s) => attr(s, 'kazma.turn.outcome'));
    expect(turns.sort()).toEqual(['answered', 'asked']);
  });

  it('sends nothing when no endpoint is set', async () => {
    received.length = 0;
    await chatOnce('untraced', {});
    expect(received).toEqual([]);
  });
});
