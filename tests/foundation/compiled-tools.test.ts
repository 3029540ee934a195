// The build users run is the build tested: `kazma chat` from dist/ (what `npm start` runs) calls every tool
// a start registers, each of which loads what it loads lazily — undici, Readability and linkedom for
// web_fetch, chrono for reminders, the MCP SDK for a server's tool. esbuild links a lazily imported package
// differently from a static import; once, web_fetch failed in dist/ alone ("request is not a function").
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPgliteDataDir } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { KazmaProcess } from '../helpers/kazma-process.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { contentText, type ChatRequestBody, type FakeStep } from '../fakes/llm-wire.ts';
import { everythingStdio } from '../mcp/servers.ts';

const PAGE =
  '<html><head><title>Compiled page</title></head>' +
  '<body><article><p>The bundle reads pages.</p></article></body></html>';
const HIT = { title: 'A hit', url: 'https://example.com/', content: 'found in the bundle' };
const SEARCH = JSON.stringify({ results: [HIT] });

/** A local site: an HTML page, and a SearXNG-shaped search answer. */
function startSite(): Promise<Server> {
  const server = createServer((req, res) => {
    const search = req.url?.startsWith('/search');
    res.writeHead(200, { 'content-type': search ? 'application/json' : 'text/html; charset=utf-8' });
    res.end(search ? SEARCH : PAGE);
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

let dir: string;
let llm: FakeLlm;
let site: Server;
let siteUrl: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kazma-compiled-'));
  llm = await startFakeLlm();
  site = await startSite();
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await llm.close();
  site.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each tool's arguments, and what its result must show; a tool a start registers but missing here fails the test. */
function calls(skill: string): Record<string, { args: Record<string, unknown>; shows: string | RegExp }> {
  return {
    current_time: { args: {}, shows: /\d{4}-\d\d-\d\d/ },
    list_files: { args: {}, shows: 'note.txt' },
    read_file: { args: { path: 'note.txt' }, shows: 'a note in the workspace' },
    write_file: { args: { path: 'out.txt', content: 'written' }, shows: 'wrote 7 bytes' },
    shell: { args: { command: 'cat note.txt' }, shows: 'a note in the workspace' },
    vault_store: { args: { name: 'compiled', value: 'hush-hush-value' }, shows: 'compiled' },
    vault_list: { args: {}, shows: 'compiled' },
    vault_retrieve: { args: { name: 'compiled' }, shows: /•••|hush-hush-value/ },
    vault_delete: { args: { name: 'compiled' }, shows: 'compiled' },
    web_fetch: { args: { url: `${siteUrl}/page` }, shows: 'The bundle reads pages.' },
    web_search: { args: { query: 'bundle' }, shows: 'found in the bundle' },
    send_message: { args: { to: 'console:maya', text: 'hello from the bundle' }, shows: /sent|posted|console:maya/ },
    send_file: {
      args: { path: 'note.txt', to: 'console:maya' },
      shows: /sent "note\.txt" \(24 bytes\) to console:maya/,
    },
    // The model may not install from a local folder (issue 37 §1): the refusal itself is the tool working.
    install_agent_skill: { args: { source: skill }, shows: 'kazma agent-skills install' },
    list_agent_skills: { args: {}, shows: 'compiled-skill' },
    load_agent_skill: { args: { name: 'compiled-skill' }, shows: 'Say hello from the compiled build.' },
    start_task: { args: { goal: 'count to three' }, shows: /task/i },
    memory_store: { args: { text: 'The bundle remembers', source: 'stated' }, shows: 'Remembered' },
    memory_search: { args: { query: 'what does the bundle remember?' }, shows: /bundle remembers|Nothing remembered/ },
    // An id nobody has: the refusal before any card is the tool reaching its store.
    memory_forget: { args: { id: 'mem_0' }, shows: 'there is no note mem_0' },
    schedule_reminder: { args: { when: 'in 2 hours', text: 'stretch' }, shows: 'stretch' },
    schedule_task: { args: { pattern: '0 9 * * *', prompt: 'report' }, shows: '0 9 * * *' },
    mcp_list_resources: { args: { server: 'everything' }, shows: 'demo://' },
    mcp_read_resource: {
      args: { server: 'everything', uri: 'demo://resource/static/document/architecture.md' },
      shows: /\w/,
    },
    mcp_list_prompts: { args: { server: 'everything' }, shows: 'simple-prompt' },
    mcp_get_prompt: { args: { server: 'everything', name: 'simple-prompt' }, shows: 'user:' },
    // The server's own tools are its business: one of them shows its tools reach it.
    mcp__everything__echo: { args: { message: 'echoed by the bundle' }, shows: 'echoed by the bundle' },
  };
}

describe('the compiled build (dist/cli/index.js)', () => {
  it('runs every tool a start registers, each through what it loads lazily', { timeout: 240_000 }, async () => {
    const data = join(dir, 'data');
    const workspace = join(dir, 'workspace');
    // Listed and loaded from skills.agent_paths (an operator's hand-written skill).
    const skill = join(dir, 'agent-skills/compiled-skill');
    mkdirSync(workspace, { recursive: true });
    mkdirSync(skill, { recursive: true });
    writeFileSync(join(workspace, 'note.txt'), 'a note in the workspace\n');
    const manifest = '---\nname: compiled-skill\ndescription: Greets.\n---\nSay hello from the compiled build.\n';
    writeFileSync(join(skill, 'SKILL.md'), manifest);
    await seedPgliteDataDir(data);
    const table = calls(skill);
    // "call <tool>" makes the model call it; a tool's result is answered with "done <tool>: <result>".
    llm.setDefault((body: ChatRequestBody): FakeStep => {
      const messages = body.messages ?? [];
      const last = messages.at(-1);
      if (last?.role === 'tool') {
        const user = [...messages].reverse().find((m) => m.role === 'user');
        const asked = contentText(user?.content).slice('call '.length);
        return { text: `done ${asked}: ${contentText(last.content).replace(/\s+/g, ' ')}` };
      }
      const name = contentText(last?.content).slice('call '.length);
      return { toolCalls: [{ name, args: table[name]?.args ?? {} }] };
    });
    const config = {
      data_dir: data,
      http: { port: 0 },
      model: { name: 'fake-model', base_url: llm.baseURL },
      access: { operators: [{ name: 'maya', console: 'maya' }] },
      tools: { workspace },
      web: { allow_private: [siteUrl.slice('http://'.length)], search: { provider: 'searxng', url: siteUrl } },
      outbound: { allow_targets: ['console:maya'] },
      mcp: { servers: [everythingStdio('everything', { trust: 'trusted' })] },
      skills: { agent_paths: [join(dir, 'agent-skills')] },
    };
    writeFileSync(join(dir, 'kazma.yaml'), JSON.stringify(config));
    const chat = new KazmaProcess(['chat', '--config', join(dir, 'kazma.yaml')], {
      cwd: dir,
      env: { KAZMA_VAULT_KEY: 'a vault key', KAZMA_SECRET: 'a signing key', DATABASE_URL: '', REDIS_URL: '' },
    });
    let exited = false;
    void chat.exited.then(() => (exited = true));
    /** Fails at once when the process ended, rather than waiting out the timeout. */
    const alive = <T>(value: T): T => {
      if (exited) throw new Error(`kazma chat exited; stdout:\n${chat.stdout}\nstderr:\n${chat.stderr}`);
      return value;
    };
    try {
      // The first turn lists the tools the model is offered: every one of them must be in the table.
      chat.child.stdin!.write('hello\n');
      const names = (): string[] => llm.requests.at(-1)?.tools?.map((t) => t.function.name) ?? [];
      await eventually(
        () => alive(names()),
        (offered) => offered.includes('mcp__everything__echo'),
        () => `the model offered every tool; stderr:\n${chat.stderr}`,
        { timeoutMs: 90_000, intervalMs: 100 },
      );
      const offered = names().filter((name) => !name.startsWith('mcp__') || name in table);
      expect(offered.filter((name) => !(name in table))).toEqual([]);
      expect(Object.keys(table).filter((name) => !offered.includes(name))).toEqual([]);
      const results: Record<string, string> = {};
      const prompts = (): number => (chat.stdout.match(/\[o\]nce \/ \[a\]lways/g) ?? []).length;
      let approved = 0;
      // In the table's order: vault_store before vault_list, install_agent_skill before load_agent_skill.
      for (const name of Object.keys(table).filter((n) => offered.includes(n))) {
        chat.child.stdin!.write(`call ${name}\n`);
        const done = new RegExp(`^kazma> done ${name}: (.*)$`, 'm');
        const result = () => {
          // A tool that asks is approved once, as a person would.
          if (prompts() > approved) approved++, chat.child.stdin!.write('o\n');
          return alive(done.exec(chat.stdout)?.[1]);
        };
        const what = () => `${name}'s result; stdout:\n${chat.stdout}\nstderr:\n${chat.stderr}`;
        results[name] = await eventually(result, (found) => found, what, { timeoutMs: 60_000, intervalMs: 50 });
      }
      const wrong = offered.filter((name) => !new RegExp(table[name]!.shows).test(results[name]!));
      expect(wrong.map((name) => `${name}: ${results[name]}`)).toEqual([]);
    } finally {
      chat.kill('SIGKILL');
    }
  });
});
