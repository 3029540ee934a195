// The one inbound path, driven through the real core: own messages, durable dedupe, access, commands,
// and per-chat ordering with nothing dropped while a turn runs.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { OPERATOR, startTestCore, transcript, type TestCore } from '../agent/helpers/core.ts';

let llm: FakeLlm;
let t: TestCore | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  llm.requests.length = 0;
  llm.attempts.length = 0;
});

describe('inbound pipeline', () => {
  it('drops the bot’s own messages', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    const outcome = await t.core.pipeline.handle({
      kind: 'message',
      eventId: 'e1',
      platform: 'telegram',
      chat: 'telegram:42',
      actor: OPERATOR,
      text: 'echo',
      fromSelf: true,
    });
    expect(outcome).toBe('own');
    expect(llm.requests).toHaveLength(0);
  });

  it('drops a redelivered event, also after a restart on the same database', async () => {
    const database = await freshDatabase('pglite');
    try {
      t = await startTestCore({ baseURL: llm.baseURL, database });
      expect(await t.say('hi', { eventId: 'update-1' })).toBe('handled');
      expect(await t.say('hi', { eventId: 'update-1' })).toBe('duplicate');
      await t.close();
      t = await startTestCore({ baseURL: llm.baseURL, database });
      expect(await t.say('hi', { eventId: 'update-1' })).toBe('duplicate');
      expect(await t.say('hi', { eventId: 'update-2' })).toBe('handled');
      expect(llm.requests).toHaveLength(2);
    } finally {
      await t?.close();
      t = undefined;
      await database.dispose();
    }
  });

  it.each(['pglite', 'postgres'] as const)(
    'takes in text PostgreSQL cannot store as it came (a NUL, a lone surrogate), with what it can [%s]',
    async (backend) => {
      // The event is stored as jsonb, which refuses U+0000 and lone surrogates. Before, the write failed
      // every time and was taken for the database being down: the webhook answered 503 for ever (Telegram
      // redelivering it), and long polling stopped taking any update behind it.
      const database = await freshDatabase(backend);
      try {
        t = await startTestCore({ baseURL: llm.baseURL, database });
        const outcome = await t.core.pipeline.handle({
          kind: 'message',
          eventId: 'nul-1',
          platform: 'telegram',
          chat: 'telegram:42',
          actor: { ...OPERATOR, displayName: 'Ma\u0000ya' },
          text: 'a\u0000b \ud800 c 😀 مرحبا',
        });
        expect(outcome).toBe('handled');
        expect(transcript(llm.requests.at(-1)!).at(-1)).toBe('user:a\ufffdb \ufffd c 😀 مرحبا');
        expect(await t.say('and then', { eventId: 'nul-2' })).toBe('handled');
        expect(llm.requests).toHaveLength(2);
      } finally {
        await t?.close();
        t = undefined;
        await database.dispose();
      }
    },
  );

  it('refuses strangers once, privately, and never reaches the model', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    const stranger = { platform: 'telegram', id: '777' };
    expect(await t.say('hi', { actor: stranger, chat: 'telegram:777' })).toBe('refused');
    expect(await t.say('hi again', { actor: stranger, chat: 'telegram:777' })).toBe('refused');
    expect(t.surface.privately.map((p) => p.text)).toEqual([
      '⛔ Sorry, you are not on this Kazma\'s access list; write to me in private to get a pairing code for an operator, or an operator can add "telegram:777" to access.users in kazma.yaml.',
    ]);
    expect(llm.requests).toHaveLength(0);
  });

  it('answers two messages sent while a turn runs, both, in order, one turn at a time', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    llm.hangNext(1, 800);
    const first = t.say('first');
    await eventually(
      () => llm.attempts.length,
      (n) => n > 0,
      'the first model call',
      { intervalMs: 10 },
    );
    const second = t.say('second');
    const third = t.say('third');
    await Promise.all([first, second, third]);
    expect(t.surface.texts()).toEqual(['echo: first', 'echo: second', 'echo: third']);
    expect(llm.attempts[1]!.at - llm.attempts[0]!.at).toBeGreaterThanOrEqual(790);
    // Each turn saw the previous one complete: serialised, not interleaved.
    expect(transcript(llm.requests[2]!)).toEqual([
      'user:first',
      'assistant:echo: first',
      'user:second',
      'assistant:echo: second',
      'user:third',
    ]);
  });
});

describe('commands', () => {
  it('/start says what Kazma is, what this person may do and their id; /help lists only what they may run', async () => {
    const USER = { platform: 'telegram', id: '77' } as const;
    t = await startTestCore({
      baseURL: llm.baseURL,
      config: { access: { operators: [{ name: 'maya', telegram: '42' }], users: ['telegram:77'] } },
    });
    await t.say('/start');
    await t.say('/start', { actor: USER });
    await t.say('/help', { actor: USER });
    const [operator, user, help] = t.surface.texts();
    expect(operator).toMatch(/^👋 Hello! I am Kazma/);
    expect(operator).toContain('You are an operator here');
    expect(operator).toContain('Your id: telegram:42');
    expect(user).toContain('You are a user here');
    expect(user).toContain('Your id: telegram:77');
    expect(help).toMatch(/^Commands:\n\/help/);
    expect(help).not.toContain('(operators)');
    expect(help).not.toMatch(/^\/config/m);
    expect(llm.requests).toHaveLength(0);
  });

  it('/help lists the commands; an unknown command says so and does not reach the model', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    await t.say('/help');
    expect(t.surface.texts()[0]).toMatch(
      /^Commands:\n\/help — list the commands\n\/new — .*\n\/compact — .*\n\/stop — .*\n\/status — /,
    );
    await t.say('/frobnicate now');
    expect(t.surface.texts()[1]).toBe('Unknown command /frobnicate. /help lists the commands.');
    expect(llm.requests).toHaveLength(0);
  });

  it('/status shows the model, thread, pending approvals, background tasks, incidents and uptime', async () => {
    t = await startTestCore({
      model: { name: 'fake-model', base_url: llm.baseURL, fallbacks: [{ name: 'spare', base_url: llm.baseURL }] },
    });
    llm.script({ toolCalls: [{ name: 'shell', args: { command: 'ls' } }] });
    await t.say('list files');
    await t.say('/status');
    expect(t.surface.texts().at(-1)).toMatch(
      /^Kazma status\nmodel: openai:fake-model \(fallbacks: openai:spare\)\nthread: telegram:42#0\npending approvals: 1\ntasks: 0 queued, 0 running, 0 waiting approval\nnext reminder: none\nincidents: none open\nuptime: \d+s$/,
    );
    expect(t.surface.openCard()).toBeDefined(); // /status does not supersede the question
  });

  it('/new starts a fresh thread: the model no longer sees earlier messages', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    await t.say('remember the word kiwi');
    await t.say('/new');
    expect(t.surface.texts().at(-1)).toBe(
      'Started a new conversation (thread telegram:42#1). Earlier messages are forgotten here.',
    );
    await t.say('what was the word?');
    expect(transcript(llm.requests.at(-1)!)).toEqual(['user:what was the word?']);
    await t.say('/status');
    expect(t.surface.texts().at(-1)).toMatch(/thread: telegram:42#1/);
  });
});
