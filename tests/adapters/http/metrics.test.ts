// `GET /metrics` on a real Kazma (startAssembled: PGlite, Redis, the fake model): refused without an API
// token unless `metrics.public`, every line of the answer in the Prometheus text format, and Kazma's own
// counters moved by a turn, a tool call and an approval decided by a tap.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../src/core/tools/define.ts';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { startAssembled, type Assembled } from '../../helpers/assembled.ts';
import { BACKENDS, freshDatabase, type FreshDatabase } from '../../helpers/databases.ts';
import { eventually } from '../../helpers/eventually.ts';
import { FakeClock } from '../../helpers/fake-clock.ts';
import { RecordingSurface } from '../../helpers/recording-surface.ts';
import { button, launch, launchTool, TG } from '../../approvals/helpers.ts';

const MAYA_TOKEN = 'maya-metrics-token-0123456789ab';
const READ_TOKEN = 'shared-read-token-0123456789ab';
const CHAT = 'telegram:1' as const;

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
const running: Assembled[] = [];
const databases: FreshDatabase[] = [];
afterEach(async () => {
  for (const k of running.splice(0)) await k.close();
  for (const d of databases.splice(0)) await d.dispose();
});

async function start(config: Record<string, unknown> = {}, tools: Parameters<typeof startAssembled>[1] = {}) {
  const k = await startAssembled(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
      access: {
        operators: [
          { name: 'maya', telegram: '42', api_token: MAYA_TOKEN },
          { name: 'ana', telegram: '43' },
        ],
      },
      http: { api_token: READ_TOKEN },
      ...config,
    },
    tools,
  );
  running.push(k);
  const scrape = (token?: string) =>
    fetch(`http://127.0.0.1:${k.kazma.http.port}/metrics`, {
      ...(token && { headers: { authorization: `Bearer ${token}` } }),
    });
  const figures = async () => {
    const answer = await scrape(READ_TOKEN);
    expect(answer.status).toBe(200);
    return parseExposition(await answer.text());
  };
  return { k, scrape, figures };
}

describe('GET /metrics', () => {
  it('is 401 without a token or with a wrong one, and answers any API token', async () => {
    const { scrape } = await start();
    const refused = await scrape();
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'unauthorized' });
    expect((await scrape('not-a-token')).status).toBe(401);
    for (const token of [READ_TOKEN, MAYA_TOKEN]) {
      const answer = await scrape(token);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    }
  });

  it('asks no token with metrics.public, and is gone with metrics.enabled false', async () => {
    const open = await start({ metrics: { public: true } });
    expect((await open.scrape()).status).toBe(200);
    const off = await start({ metrics: { enabled: false } });
    expect((await off.scrape(READ_TOKEN)).status).toBe(404);
  });

  it('is the Prometheus text format, with process figures and the scrape-time gauges', async () => {
    const { figures } = await start();
    const seen = await figures();
    expect(seen.get('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(seen.has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect(seen.get('kazma_outbox_backlog{state="pending"}')).toBe(0);
    expect(seen.get('kazma_inbox_backlog{state="received"}')).toBe(0);
    expect(seen.get('kazma_incidents_open')).toBe(0);
    for (const lane of ['outbox', 'sweeps', 'swarm', 'schedules'])
      expect(seen.has(`kazma_jobs{lane="${lane}",state="waiting"}`), lane).toBe(true);
  });

  it('counts a turn, its model calls and tokens, a tool call and an approval decided by a tap', async () => {
    const launches = launchTool();
    const { k, figures } = await start({}, { tools: [launches.tool] });
    const surface = new RecordingSurface('telegram');
    k.kazma.core.attachSurface(surface);
    const before = await figures();
    expect(before.get('kazma_approvals_requested_total')).toBe(0);

    llm.script(launch({ target: 'venus' }), { text: 'done' });
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: TG.maya,
      text: 'launch to venus',
    });
    await k.settled();
    const asked = await figures();
    expect(asked.get('kazma_turns_total{outcome="asked",platform="telegram"}')).toBe(1);
    expect(asked.get('kazma_approvals_requested_total')).toBe(1);
    expect(asked.get('kazma_model_requests_total{provider="openai",status="ok"}')).toBe(1);

    const card = surface.cards.at(-1)!;
    await k.kazma.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: TG.ana,
      actionId: button(card.card, 'once'),
      message: card.ref,
    });
    await k.settled();
    expect(launches.runs).toHaveLength(1);
    const after = await figures();
    expect(after.get('kazma_approvals_decided_total{outcome="once"}')).toBe(1);
    expect(after.get('kazma_approval_decision_seconds_count')).toBe(1);
    expect(after.get('kazma_tool_calls_total{outcome="ok",tool="launch"}')).toBe(1);
    expect(after.get('kazma_turns_total{outcome="answered",platform="telegram"}')).toBe(1);
    expect(after.get('kazma_turn_duration_seconds_count{platform="telegram"}')).toBe(2);
    expect(after.get('kazma_model_requests_total{provider="openai",status="ok"}')).toBe(2);
    expect(after.get('kazma_model_tokens_total{kind="input",provider="openai"}')).toBeGreaterThan(0);
    // No chat and no person is a label: the series name platforms, tools and outcomes only.
    const text = await (
      await fetch(`http://127.0.0.1:${k.kazma.http.port}/metrics`, {
        headers: { authorization: `Bearer ${READ_TOKEN}` },
      })
    ).text();
    expect(text).not.toMatch(/telegram:1|"42"|"43"/);
  });

  it('counts a gate nobody decided in time as expired, and its resumed drive as answered', async () => {
    const launches = launchTool();
    const clock = new FakeClock();
    const { k, figures } = await start({ approvals: { timeout: '1m' } }, { tools: [launches.tool], clock });
    k.kazma.core.attachSurface(new RecordingSurface('telegram'));
    llm.script(launch({ target: 'mars' }), { text: 'not launched' });
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: TG.maya,
      text: 'launch to mars',
    });
    await k.settled();
    clock.advance(61_000);
    expect(await k.kazma.core.reconciler.sweep()).toMatchObject({ expired: 1 });
    await k.settled();
    const seen = await figures();
    expect(launches.runs).toEqual([]);
    expect(seen.get('kazma_approvals_expired_total')).toBe(1);
    expect(seen.has('kazma_approvals_decided_total{outcome="deny"}')).toBe(false);
    expect(seen.get('kazma_tool_calls_total{outcome="denied",tool="launch"}')).toBe(1);
    expect(seen.get('kazma_turns_total{outcome="answered",platform="telegram"}')).toBe(1);
  });

  it.each(BACKENDS)(
    'shows a turn in progress on %s: its leases held and its inbox row running, 0 after',
    async (backend) => {
      let started = false;
      let finish = () => {};
      const held = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const wait = defineTool({
        name: 'wait',
        description: 'Waits until the test lets it finish.',
        tier: 'safe',
        effects: false,
        input: z.object({}),
        run: async () => {
          started = true;
          await held;
          return 'waited';
        },
      });
      const database = await freshDatabase(backend);
      databases.push(database);
      const { k, figures } = await start({}, { tools: [wait], database });
      k.kazma.core.attachSurface(new RecordingSurface('telegram'));
      llm.script({ toolCalls: [{ name: 'wait', args: {} }] }, { text: 'done waiting' });
      const turn = k.kazma.core.pipeline.handle({
        kind: 'message',
        eventId: randomUUID(),
        platform: 'telegram',
        chat: CHAT,
        actor: TG.maya,
        text: 'wait',
      });
      await eventually(
        () => started,
        (s) => s,
        'the wait tool to start',
      );
      const during = await figures();
      // The chat's lease (its turn order) and the thread's (the drive).
      expect(during.get('kazma_leases_held')).toBe(2);
      expect(during.get('kazma_inbox_backlog{state="running"}')).toBe(1);
      finish();
      await turn;
      await k.settled();
      const after = await figures();
      expect(after.get('kazma_leases_held')).toBe(0);
      expect(after.get('kazma_inbox_backlog{state="running"}')).toBe(0);
      expect(after.get('kazma_tool_calls_total{outcome="ok",tool="wait"}')).toBe(1);
    },
  );
});

// One sample line: a metric name, optional {label="value",…}, a value (a float, NaN or ±Inf), an optional
// timestamp. Escapes in a value are \\, \" and \n only.
// NaN in any case: prom-client writes `Nan` (an event-loop lag with no sample yet), which Prometheus reads as
// Go's ParseFloat does, case-insensitively.
const SAMPLE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? (-?(?:\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|[Nn]a[Nn]|Inf)|[+-]Inf)(?: -?\d+)?$/;
const COMMENT =
  /^# (?:HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (?:counter|gauge|histogram|summary|untyped))$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * Parses the text exposition strictly: every line is a comment, a blank or a sample, and every sample's
 * family has a TYPE line before it. Samples are keyed `name{a="1",b="2"}` with labels sorted by name.
 */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const typed = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      expect(line, 'a comment line').toMatch(COMMENT);
      if (line.startsWith('# TYPE ')) typed.add(line.split(' ')[2]!);
      continue;
    }
    const match = SAMPLE.exec(line);
    expect(match, `not a sample line: ${line}`).not.toBeNull();
    const [, name, labels = '', value] = match!;
    const family = name!.replace(/_(bucket|sum|count|total|created)$/, '');
    expect(typed.has(name!) || typed.has(family), `no TYPE before ${name}`).toBe(true);
    const sorted = [...labels.matchAll(LABEL)]
      .filter(([, label]) => label !== 'le' || name!.endsWith('_bucket'))
      .map(([, label, v]) => `${label}="${v}"`)
      .sort();
    samples.set(sorted.length > 0 ? `${name}{${sorted.join(',')}}` : name!, Number(value));
  }
  return samples;
}
