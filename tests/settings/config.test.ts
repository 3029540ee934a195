// `/config`: an operator switches a tool off and on from chat; the model's next request proves it; the
// switch survives a restart (saved in the database, never in kazma.yaml); anyone else is refused
// privately, audited, and changes nothing; the command never reaches the model.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRef } from '../../src/core/surface/index.ts';
import { configAudit } from '../../src/core/db/schema/settings.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { kazmasOnOneDatabase } from '../helpers/assembled.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const CHAT: ChatRef = 'telegram:1';
const MAYA = { platform: 'telegram', id: '42' };
const USER = { platform: 'telegram', id: '77' };
const SECRET = 'api-token-0123456789abcdef';

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

async function start() {
  const k = await kazmas.start({
    model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 0 },
    access: { operators: [{ name: 'maya', telegram: '42' }], users: ['telegram:77'] },
    http: { port: 0, api_token: SECRET },
  });
  const surface = new RecordingSurface('telegram');
  k.kazma.core.attachSurface(surface);
  const say = async (text: string, actor = MAYA) => {
    await k.kazma.core.pipeline.handle({
      kind: 'message',
      eventId: randomUUID(),
      platform: actor.platform,
      chat: CHAT,
      actor,
      text,
    });
    await k.settled();
    return surface.texts().at(-1)!;
  };
  /** The tool names the model was offered in the newest request. */
  const offered = () => (llm.requests.at(-1)?.tools ?? []).map((t) => t.function.name);
  return { k, surface, say, offered };
}

describe('/config', () => {
  it('tools toggle: off for the next model request, still off after a restart, on again on the next toggle', async () => {
    const first = await start();
    await first.say('hello');
    expect(first.offered()).toContain('write_file');
    const before = llm.requests.length;
    expect(await first.say('/config tools toggle write_file')).toBe(
      'write_file is off: the model is not offered it from the next message (saved; survives restarts).',
    );
    expect(llm.requests.length).toBe(before); // the command never reaches the model
    await first.say('hello again');
    expect(first.offered()).not.toContain('write_file');
    expect(first.offered()).toContain('read_file');

    await kazmas.stop(first.k);
    const second = await start();
    await second.say('after the restart');
    expect(second.offered()).not.toContain('write_file');
    expect(await second.say('/config tools toggle WRITE_FILE')).toBe(
      'write_file is on again: the model is offered it from the next message (saved; survives restarts).',
    );
    await second.say('and now');
    expect(second.offered()).toContain('write_file');
    const audit = await second.k.database.db.select().from(configAudit).orderBy(configAudit.id);
    expect(audit.map((a) => [a.command, a.outcome, a.detail, a.actor.operator])).toEqual([
      ['/config tools toggle write_file', 'changed', 'off', 'maya'],
      ['/config tools toggle write_file', 'changed', 'on', 'maya'],
    ]);
  });

  it('someone who is not an operator is refused privately and audited; nothing changes', async () => {
    const { k, surface, say, offered } = await start();
    await say('/config tools toggle write_file', USER);
    expect(surface.privately).toEqual([
      { chat: CHAT, actor: expect.objectContaining({ id: '77' }), text: '/config is for operators only.' },
    ]);
    expect(surface.texts()).toEqual([]);
    await say('hello', USER);
    expect(offered()).toContain('write_file');
    const audit = await k.database.db.select().from(configAudit);
    expect(audit.map((a) => [a.command, a.outcome, a.actor.id])).toEqual([
      ['/config tools toggle write_file', 'refused', '77'],
    ]);
  });

  it('an unknown tool gets a did-you-mean and the list; tools list shows each switch and tier', async () => {
    const { say } = await start();
    expect(await say('/config tools toggle write_fiel')).toMatch(
      /^There is no tool "write_fiel"\. Did you mean write_file\? Tools: .*read_file.*\.$/,
    );
    await say('/config tools toggle shell');
    const list = await say('/config tools list');
    expect(list).toMatch(/^Tools:\n/);
    expect(list).toContain('⚪ shell — off — asks first (danger)');
    expect(list).toMatch(/🟢 read_file — on — runs freely/);
  });

  it('show and export print the effective configuration with secrets masked', async () => {
    const { say } = await start();
    await say('/config tools toggle shell');
    const shown = await say('/config show');
    expect(shown).toMatch(/^Effective configuration \(secrets masked\):\n/);
    expect(shown).not.toContain(SECRET);
    expect(shown).toContain('api_token: •••');
    expect(shown).toMatch(/disabled:\n\s+- shell/);
    const exported = await say('/config export');
    expect(exported).toMatch(/^# kazma\.yaml, exported/);
    expect(exported).not.toContain(SECRET);
  });
});
