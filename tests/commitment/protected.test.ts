// Protected settings (access, approvals, tools, outbound, prompt, model) are never changed by a tool call, whatever
// the approval: refused before any card, and refused again on the path an approved call takes.
// Catastrophic shell commands are refused by the same check, before any card.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { isProtectedSetting } from '../../src/core/commitment/protected.ts';
import { commitmentGuard } from '../../src/core/commitment/protected.ts';
import { RefusedBeforeEffect } from '../../src/core/effects/refused.ts';
import { defineTool } from '../../src/core/tools/define.ts';
import { shellTool } from '../../src/core/tools/builtin/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { toolResults } from '../approvals/helpers.ts';
import { kazmasOnOneDatabase } from '../helpers/assembled.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const CHAT: ChatRef = 'telegram:1';
const MAYA = { platform: 'telegram', id: '42' };

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

/** A settings tool of the kind a plugin might bring: it says which key a call changes, and counts its runs. */
function settingTool() {
  const changed: string[] = [];
  const tool = defineTool({
    name: 'set_setting',
    description: 'Changes one setting.',
    tier: 'danger',
    effects: true,
    outside: false,
    input: z.object({ key: z.string(), value: z.string() }),
    settings: ({ key }) => [key],
    run: async ({ key }) => {
      changed.push(key);
      return `changed ${key}`;
    },
  });
  return { tool, changed };
}

async function start() {
  const setting = settingTool();
  const k = await kazmas.start(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
      access: { operators: [{ name: 'maya', telegram: '42' }] },
    },
    { tools: [setting.tool] },
  );
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
  return { k, surface, say, changed: setting.changed };
}

describe('protected settings', () => {
  it.each(['access.users', 'approvals.approvers', 'tools.disabled', 'outbound.allow_targets', 'ACCESS'])(
    '%s: refused before any card, and on the approved path too',
    async (key) => {
      const { k, surface, say, changed } = await start();
      llm.script({ toolCalls: [{ name: 'set_setting', args: { key, value: 'x' } }] }, { text: 'Could not.' });
      await say(`change ${key}`);
      expect(surface.cards).toEqual([]);
      expect(toolResults(llm.requests.at(-1)).at(-1)).toMatch(
        new RegExp(`^refused before any effect: "${key}" is a protected setting`),
      );
      // What an approved call runs: the same check, so no approval makes it acceptable.
      const approved = await k.kazma.core.tools.execute(
        'set_setting',
        { key, value: 'x' },
        { workspace: k.workspace, env: {} },
      );
      expect(approved).toMatchObject({ ok: false, refused: true });
      expect(changed).toEqual([]);
    },
  );

  it('a setting that is not protected goes to an approval card as usual', async () => {
    const { surface, say, changed } = await start();
    llm.script({ toolCalls: [{ name: 'set_setting', args: { key: 'time.zone', value: 'Europe/Berlin' } }] });
    await say('change the zone');
    expect(surface.openCard()?.card.title).toBe('Approve set_setting?');
    expect(changed).toEqual([]);
  });

  it('names: a key under a protected root is protected; a look-alike is not', () => {
    expect(isProtectedSetting('access')).toBe(true);
    expect(isProtectedSetting('tools.shell.allow')).toBe(true);
    expect(isProtectedSetting('approvals[0]')).toBe(true);
    expect(isProtectedSetting('accessibility')).toBe(false);
    expect(isProtectedSetting('model.name')).toBe(true);
    expect(isProtectedSetting('prompt')).toBe(true);
    expect(isProtectedSetting('models')).toBe(false);
    expect(isProtectedSetting('web.timeout')).toBe(false);
  });
});

describe('catastrophic shell, behind the commitment check', () => {
  it('is refused by the commitment guard itself, whatever the shell policy says', () => {
    const shell = shellTool({ allow: ['rm', 'mkfs'] });
    for (const command of ['rm -rf .', 'rm -rf *', 'mkfs /dev/sda1']) {
      expect(() => commitmentGuard.check({ tool: shell, args: { command } }, { workspace: '/tmp', env: {} })).toThrow(
        RefusedBeforeEffect,
      );
    }
    expect(() =>
      commitmentGuard.check({ tool: shell, args: { command: 'rm notes.txt' } }, { workspace: '/tmp', env: {} }),
    ).not.toThrow();
  });

  it('reaches no card in an assembled Kazma', async () => {
    const { surface, say } = await start();
    llm.script({ toolCalls: [{ name: 'shell', args: { command: 'rm -rf .' } }] }, { text: 'Refused.' });
    await say('clean everything');
    expect(surface.cards).toEqual([]);
    expect(toolResults(llm.requests.at(-1)).at(-1)).toMatch(/^refused before any effect: .*rm -rf \./);
  });
});
