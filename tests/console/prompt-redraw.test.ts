// `kazma chat` at a real terminal (a tmux pane, so the screen is what a person sees): a reminder that
// fires while the person is typing at `you> ` is printed on its own line above the prompt, and the words
// typed so far are drawn again under it, intact, and sent as typed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPgliteDataDir } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { contentText } from '../fakes/llm-wire.ts';
import { CLI, writeConfig } from '../agent/helpers/spawn.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

// A tmux server of this test's own: it starts with this process's environment and dies with kill-server.
const SOCKET = `kazma-prompt-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
/** The pane's lines as shown, trailing blanks dropped. */
const screen = () =>
  tmux('capture-pane', '-p', '-t', 'chat')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter(Boolean);

let dir: string;
let llm: FakeLlm;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kazma-prompt-'));
  llm = await startFakeLlm();
});
afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // Already gone: the chat ended with its pane.
  }
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a reminder while the person types at the prompt', () => {
  it('prints above the prompt and redraws the words typed so far', async () => {
    await seedPgliteDataDir(join(dir, 'data'));
    const config = writeConfig(dir, 'kazma.yaml', {
      data_dir: join(dir, 'data'),
      http: { port: 0 },
      model: { name: 'fake-model', base_url: llm.baseURL },
      access: { operators: [{ name: 'maya', console: 'maya' }] },
    });
    const command = [process.execPath, CLI, 'chat', '--config', config].map((part) => `'${part}'`).join(' ');
    tmux('new-session', '-d', '-s', 'chat', '-x', '120', '-y', '30', '-c', REPO_ROOT, command);
    await eventually(screen, (lines) => lines.at(-1) === 'you>', 'the first prompt', 30_000);

    tmux('send-keys', '-t', 'chat', '-l', '/remind in 3 seconds stretch 🧘 تمدد');
    tmux('send-keys', '-t', 'chat', 'Enter');
    await eventually(
      screen,
      (lines) => lines.some((line) => line.includes('I will remind')) && lines.at(-1) === 'you>',
      'the reminder set, and the prompt back',
      15_000,
    );
    tmux('send-keys', '-t', 'chat', '-l', 'half a thought');

    const shown = await eventually(
      screen,
      (lines) => lines.some((line) => line.includes('Reminder: stretch')) && lines,
      'the reminder on screen',
      15_000,
    );
    const at = shown.findIndex((line) => line.includes('Reminder: stretch'));
    expect(shown[at]).toBe('kazma> ⏰ Reminder: stretch 🧘 تمدد');
    // The prompt and the typed words, once, on the line under the reminder.
    expect(shown.slice(at + 1)).toEqual(['you> half a thought']);
    expect(shown.filter((line) => line.includes('half a thought'))).toHaveLength(1);

    tmux('send-keys', '-t', 'chat', 'Enter');
    const asked = await eventually(
      () => llm.requests.map((body) => contentText(body.messages?.at(-1)?.content ?? '')),
      (texts) => texts.includes('half a thought') && texts,
      'the typed line sent to the model',
      15_000,
    );
    expect(asked.filter((text) => text.includes('half a thought'))).toEqual(['half a thought']);
  }, 90_000);
});
