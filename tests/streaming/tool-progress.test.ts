// While a turn waits on a tool, its live message says what is happening, and the answer that follows
// replaces that line in the same message.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { toolProgressLine } from '../../src/core/streaming/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { MAYA, startHarness, type Harness } from '../adapters/telegram/harness.ts';

/** A group: answers are messages, sent then edited (private chats get draft previews). */
const GROUP = -1001000;
let llm: FakeLlm;
let h: Harness | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('shows the running tool, then the answer in the same message', async () => {
  h = await startHarness({ modelBaseUrl: llm.baseURL, groups: 'all', config: { streaming: { start_after: '0ms' } } });
  // current_time needs no approval; the model is slow to answer after it, so the progress line shows.
  llm.script(
    { toolCalls: [{ name: 'current_time', args: {} }] },
    { text: 'It is **noon**.', pacing: { delayMs: 700 } },
  );
  h.say({ chatId: GROUP, from: MAYA, text: 'what time is it?' });
  await h.settled();
  const messages = h.fake.messages(GROUP);
  expect(messages).toHaveLength(1);
  expect(messages[0]!.history.map((v) => v.text)).toContain('🔧 current_time …');
  expect(messages[0]!.text).toBe('It is noon.');
});

it('a progress line shows a tool’s arguments visibly and never as formatting', () => {
  expect(toolProgressLine({ tool: 'shell', args: { command: 'ls -la `x` **y**' } })).toBe('🔧 shell: ls -la  x    y …');
  expect(toolProgressLine({ tool: 'web_fetch', args: { url: 'https://example.com/a?b=1' } })).toBe(
    '🌐 fetching example.com …',
  );
  const hostile = toolProgressLine({ tool: 'mcp__x__evil\u202e', args: { path: 'a\nb\u200bc' } });
  expect(hostile).not.toMatch(/[\u202e\u200b\n]/);
  expect(toolProgressLine({ tool: 'shell', args: { command: 'x'.repeat(500) } }).length).toBeLessThan(120);
  // Actual secrets are masked as on a card: a configured value, a key by its form; a field's name is not.
  const withSecrets = toolProgressLine(
    { tool: 'shell', args: { command: 'curl -H "X-Key: hunter2-very-secret" -d sk-abcdefghijklmnopqrstuvwx x' } },
    ['hunter2-very-secret'],
  );
  expect(withSecrets).not.toContain('hunter2-very-secret');
  expect(withSecrets).not.toContain('sk-abcdefghijklmnopqrstuvwx');
  expect(toolProgressLine({ tool: 'vault_get', args: { secret_name: 'deploy' } })).toBe('🔧 vault_get: deploy …');
});
