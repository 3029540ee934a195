// `kazma chat` as a user scripts it: the real CLI in its own process, messages piped over stdin.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedPgliteDataDir } from '../helpers/databases.ts';
import { runChat } from '../../src/cli/commands/chat.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { contentText, defaultStep, type ChatRequestBody, type FakeStep } from '../fakes/llm-wire.ts';
import { CLI, killAll, spawnNode, writeConfig } from '../agent/helpers/spawn.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

let dir: string;
let llm: FakeLlm;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kazma-chat-'));
  llm = await startFakeLlm();
  // "write <file>" makes the model call write_file; anything else gets the default echo / done reply.
  llm.setDefault((body: ChatRequestBody): FakeStep => {
    const last = body.messages?.at(-1);
    const match = last?.role === 'user' ? /^write (\S+)$/.exec(contentText(last.content)) : null;
    return match
      ? { toolCalls: [{ name: 'write_file', args: { path: match[1], content: 'from kazma' } }] }
      : defaultStep(body);
  });
});
afterEach(() => killAll());
afterAll(async () => {
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

async function kazmaChat(name: string, config: Record<string, unknown>, lines: string[]) {
  await seedPgliteDataDir(join(dir, name));
  const workspace = join(dir, `${name}-workspace`);
  const path = writeConfig(dir, `${name}.yaml`, {
    data_dir: join(dir, name),
    http: { port: 0 },
    tools: { workspace },
    ...config,
  });
  const child = spawnNode(CLI, ['chat', '--config', path]);
  child.send(lines, true);
  const { code } = await child.exited;
  expect(code, child.stderr()).toBe(0);
  return { out: child.stdout(), workspace };
}

describe('kazma chat over piped stdin', () => {
  it('answers messages, and runs a danger tool only after "o", never after "d"', async () => {
    const { out, workspace } = await kazmaChat(
      'script',
      {
        model: { name: 'fake-model', base_url: llm.baseURL },
        access: { operators: [{ name: 'maya', console: 'maya' }] },
      },
      ['hello', 'write yes.txt', 'o', 'write no.txt', 'd', '/status'],
    );

    const replies = out.split('\n').filter((line) => line.startsWith('kazma> '));
    expect(replies.slice(0, 3)).toEqual([
      'kazma> echo: hello',
      'kazma> done: wrote 10 bytes to yes.txt',
      'kazma> done: denied by maya. The call did not run; do not retry it unchanged.',
    ]);
    expect(out).toContain('[approval] Approve write_file?\n[approval]   Tool: write_file (tier: danger)\n');
    expect(out).toContain('[approval]   Arguments: {');
    expect(out).toContain('"path": "yes.txt"');
    expect(out.match(/\[approval\] \[o\]nce \/ \[a\]lways \/ \[d\]eny\?/g)).toHaveLength(2);
    expect(out).toMatch(/\[approval\] Approved once by maya on the console at \d\d:\d\d UTC\n/);
    expect(out).toMatch(/\[approval\] Denied by maya on the console at \d\d:\d\d UTC\n/);
    expect(readFileSync(join(workspace, 'yes.txt'), 'utf8')).toBe('from kazma');
    expect(existsSync(join(workspace, 'no.txt'))).toBe(false);
    expect(out).toContain('kazma> pending approvals: 0');
  });

  it('starts without a model and answers with the one ⚠️ configure line', async () => {
    const { out } = await kazmaChat('no-model', {}, ['hi']);
    expect(out).toBe(
      'kazma> ⚠️ No model is configured, so I cannot answer. Set model.name and model.api_key in kazma.yaml ' +
        '(or model.base_url for a local OpenAI-compatible server) and restart Kazma.\n',
    );
  });
});

describe('kazma chat at a terminal', () => {
  it('prints a one-line banner with the version, the model and the thread, then the conversation', async () => {
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    await seedPgliteDataDir(join(dir, 'banner'));
    const loaded = parseConfig(
      JSON.stringify({
        data_dir: join(dir, 'banner'),
        http: { port: 0 },
        model: { name: 'fake-model', base_url: llm.baseURL },
      }),
      { env: { PATH: process.env.PATH }, baseDir: dir },
    );
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk));
    input.end('hello\n');
    const code = await runChat({
      loaded,
      logger: createLogger({ level: 'silent', pretty: false }),
      input,
      output,
      interactive: true,
    });
    expect(code).toBe(0);
    expect(printed.split('\n')[0]).toBe(
      `Kazma ${version} · openai:fake-model · thread console:local#0 · /help lists commands, Ctrl-D leaves`,
    );
    expect(printed).toContain('kazma> echo: hello');
  }, 60_000);
});
