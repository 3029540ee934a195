// Kazma assembled as `kazma start` assembles it: a page that says "ignore previous instructions"
// reaches the model only inside the fence (the fake model's request proves it); web_search is offered
// only with a provider, and its results come back fenced too.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { toolResults } from '../approvals/helpers.ts';
import { kazmasOnOneDatabase } from '../helpers/assembled.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { INJECTION, startSearxng, startSite, type TestServer } from './servers.ts';

const CHAT: ChatRef = 'telegram:1';
const MAYA = { platform: 'telegram', id: '42' };

let llm: FakeLlm;
let site: TestServer;
let searx: TestServer;
beforeAll(async () => {
  [llm, site, searx] = await Promise.all([startFakeLlm(), startSite(), startSearxng()]);
});
afterAll(async () => {
  await Promise.all([llm.close(), site.close(), searx.close()]);
});
const kazmas = kazmasOnOneDatabase();
afterEach(() => {
  llm.requests.length = 0;
});

async function start(web: Record<string, unknown>) {
  const k = await kazmas.start({
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: { operators: [{ name: 'maya', telegram: '42' }] },
    web,
  });
  const surface = new RecordingSurface('telegram');
  k.kazma.core.attachSurface(surface);
  const say = async (text: string) => {
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      text,
    });
    await k.settled();
  };
  const offered = () => (llm.requests.at(-1)?.tools ?? []).map((t) => t.function.name);
  return { k, surface, say, offered };
}

/** The text between a fence's opening line and its closing line, or undefined when `output` is not one fence. */
function insideFence(output: string): string | undefined {
  const lines = output.split('\n');
  const boundary = /^«outside:([0-9a-f]{24})» /.exec(lines[0] ?? '')?.[1];
  if (!boundary || lines.at(-1) !== `«end:${boundary}»`) return undefined;
  return lines.slice(1, -1).join('\n');
}

describe('web tools, assembled', () => {
  it('a fetched page with "ignore previous instructions" reaches the model inside the fence', async () => {
    const { say, offered, surface } = await start({ allow_private: [`127.0.0.1:${site.port}`] });
    llm.script(
      { toolCalls: [{ name: 'web_fetch', args: { url: `${site.origin}/page` } }] },
      { text: 'The page is a test page.' },
    );
    await say('what is on the test page?');
    expect(offered()).toContain('web_fetch');
    expect(offered()).not.toContain('web_search');
    const [result] = toolResults(llm.requests.at(-1));
    const inside = insideFence(result ?? '');
    expect(inside).toContain(INJECTION);
    expect(inside).toContain('Title: Kazma test page');
    // Nowhere else: the only copy of the line the model saw is the fenced one.
    expect(JSON.stringify(llm.requests.at(-1)?.messages).split(INJECTION)).toHaveLength(2);
    expect(surface.cards).toEqual([]); // safe by default: no approval asked
    expect(surface.texts().at(-1)).toBe('The page is a test page.');
  });

  it('web_search is offered with a provider; its results (a SearXNG answer) are fenced', async () => {
    const { say, offered } = await start({
      allow_private: [`127.0.0.1:${searx.port}`],
      search: { provider: 'searxng', url: searx.origin },
    });
    llm.script({ toolCalls: [{ name: 'web_search', args: { query: 'kazma agent' } }] }, { text: 'Found two.' });
    await say('search for kazma');
    expect(offered()).toContain('web_search');
    const inside = insideFence(toolResults(llm.requests.at(-1))[0] ?? '');
    expect(inside).toContain('1. First about kazma agent\n   https://one.example/a');
    expect(inside).toContain(INJECTION);
    expect(searx.hits).toEqual(['GET /search?q=kazma+agent&format=json']);
  });

  it('web.require_approval makes web_fetch ask first', async () => {
    const { say, surface } = await start({ allow_private: [`127.0.0.1:${site.port}`], require_approval: true });
    llm.script({ toolCalls: [{ name: 'web_fetch', args: { url: `${site.origin}/plain` } }] });
    const before = site.hits.length;
    await say('fetch it');
    expect(surface.openCard()?.card.title).toContain('web_fetch');
    expect(site.hits.length).toBe(before);
  });
});
