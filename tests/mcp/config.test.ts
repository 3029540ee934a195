// MCP through the assembled Kazma with the fake LLM: a server's tool call waits for an approval card and
// returns the server's result; `/config tools toggle <server>` takes its tools out of the next model
// request, stays off across a restart and comes back on the next toggle; a non-operator changes nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { mcpServers } from '../../src/core/db/schema/mcp.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { kazmasOnOneDatabase } from '../helpers/assembled.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';
import { everythingHttp, everythingStdio } from './servers.ts';

const CHAT: ChatRef = 'telegram:1';
const MAYA = { platform: 'telegram', id: '42' };
const USER = { platform: 'telegram', id: '77' };

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
const kazmas = kazmasOnOneDatabase();
afterEach(() => {
  llm.requests.length = 0;
});

async function start(servers: unknown[] = [everythingStdio()]) {
  const k = await kazmas.start({
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: { operators: [{ name: 'maya', telegram: '42' }], users: ['telegram:77'] },
    mcp: { servers },
  });
  const surface = new RecordingSurface('telegram');
  k.kazma.core.attachSurface(surface);
  const handle = async (event: Record<string, unknown>) => {
    await k.kazma.core.pipeline.handle({
      eventId: randomUUID(),
      platform: 'telegram',
      chat: CHAT,
      actor: MAYA,
      ...event,
    } as never);
    await k.settled();
    return surface.texts().at(-1)!;
  };
  const say = (text: string, actor = MAYA) => handle({ kind: 'message', text, actor });
  const offered = () => (llm.requests.at(-1)?.tools ?? []).map((t) => t.function.name);
  return { k, surface, say, handle, offered };
}

describe('MCP servers in the assembled Kazma', () => {
  it.each(['stdio', 'streamable_http'])(
    'a tool call over %s goes through an approval card and returns the server result',
    async (transport) => {
      const http = transport === 'stdio' ? undefined : await everythingHttp();
      let running: Awaited<ReturnType<typeof start>>['k'] | undefined;
      try {
        const { k, surface, say, handle, offered } = await start(
          http ? [{ name: 'everything', transport: 'http', url: http.url }] : undefined,
        );
        running = k;
        llm.script({ toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'hi from mcp' } }] });
        await say('echo something');
        expect(offered()).toEqual(
          expect.arrayContaining([
            'mcp__everything__echo',
            'mcp__everything__get-sum',
            'mcp_list_resources',
            'mcp_read_resource',
          ]),
        );
        const card = surface.openCard()!;
        expect(card.card.title).toBe('Approve mcp__everything__echo?');
        expect(card.card.fields.find((f) => f.label === 'Why')!.value).toContain('untrusted server "everything"');
        const approve = card.card.buttons.find((b) => b.id.endsWith(':once'))!.id;
        const reply = await handle({ kind: 'action', actionId: approve });
        expect(reply).toMatch(/^done: [\s\S]*Echo: hi from mcp/);
        const toolMessage = llm.requests.at(-1)!.messages!.find((m) => m.role === 'tool');
        expect(JSON.stringify(toolMessage)).toContain('Echo: hi from mcp');
      } finally {
        // Kazma first, so the server going away is not taken for a crash.
        if (running) await kazmas.stop(running);
        await http?.stop();
      }
    },
  );

  it('/config tools toggle <server>: off for the next request, off after a restart, on again; list shows state', async () => {
    const first = await start();
    const list = await first.say('/config tools list');
    expect(list).toMatch(
      /MCP servers:\n🟢 everything — MCP server, on — untrusted \(asks first\) — running — \d+ tools/,
    );
    expect(list).not.toContain('mcp__everything__echo'); // servers are switched whole, not tool by tool
    expect(await first.say('/config tools toggle everything')).toBe(
      'MCP server everything is off and stopped: its tools are not offered from the next message (saved; survives restarts).',
    );
    await first.say('hello');
    expect(first.offered().filter((n) => n.startsWith('mcp__everything__'))).toEqual([]);
    expect(first.offered()).toContain('read_file');
    const [row] = await first.k.database.db.select().from(mcpServers);
    expect(row).toMatchObject({ name: 'everything', state: 'disabled' });

    await kazmas.stop(first.k);
    const second = await start();
    await second.say('after the restart');
    expect(second.offered().filter((n) => n.startsWith('mcp__everything__'))).toEqual([]);
    expect(await second.say('/config tools list')).toContain('⚪ everything — MCP server, off');
    expect(await second.say('/config tools toggle Everything')).toBe(
      'MCP server everything is on again and starting: its tools are offered from the next message (saved; survives restarts).',
    );
    await second.say('and now');
    expect(second.offered()).toContain('mcp__everything__echo');
  });

  it('a non-operator is refused and nothing changes; an unknown name gets a did-you-mean with the servers', async () => {
    const { surface, say, offered } = await start();
    await say('/config tools toggle everything', USER);
    expect(surface.privately.map((p) => p.text)).toEqual(['/config is for operators only.']);
    await say('hello', USER);
    expect(offered()).toContain('mcp__everything__echo');
    expect(await say('/config tools toggle everythin')).toMatch(
      /^There is no tool "everythin"\. Did you mean everything\?.* MCP servers: everything\.$/,
    );
  });

  it('a server that fails is listed with its masked reason; /config show masks MCP secrets', async () => {
    const { say } = await start([
      {
        name: 'broken',
        command: process.execPath,
        args: ['-e', 'process.exit(3)', '--api-key=sk-typed-in-0123456789'],
        env: { GITHUB_TOKEN: 'ghp_planted0123456789' },
      },
      {
        name: 'remote',
        url: 'http://127.0.0.1:9/mcp',
        auth: { header: 'X-Api-Key', value: 'header-secret-0123456789' },
      },
    ]);
    const list = await say('/config tools list');
    expect(list).toMatch(/🔴 broken — MCP server, on — untrusted \(asks first\) — failed: .+ — 0 tools/);
    expect(list).toMatch(/🔴 remote — MCP server, on — untrusted \(asks first\) — failed: /);
    const shown = await say('/config show');
    for (const secret of ['sk-typed-in-0123456789', 'ghp_planted0123456789', 'header-secret-0123456789']) {
      expect(list).not.toContain(secret);
      expect(shown).not.toContain(secret);
    }
    expect(shown).toContain('--api-key=•••');
  });
});
