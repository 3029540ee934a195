// DM pairing (access.pairing): a stranger who writes to the bot in private gets a pairing code and never
// reaches the model; an operator's `/pair <code>` lets them in, on any platform; wrong, used and expired
// codes are refused; the person stays in across a restart until `/config users remove`; every step is
// audited. Driven through the real Telegram and Slack adapters against the fake platforms.
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configAudit, pairingCodes } from '../../src/core/db/index.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startFakeTelegram } from '../fakes/telegram/index.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { LINA, MAYA, SAM, startHarness, type Harness } from '../adapters/telegram/harness.ts';
import * as slack from '../adapters/slack/harness.ts';

const CODE = /\b([A-HJKMNP-Z2-9]{8})\b/;
let llm: FakeLlm;
let h: Harness | undefined;
let s: slack.SlackHarness | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await h?.close();
  await s?.close();
  h = undefined;
  s = undefined;
  llm.requests.length = 0;
});

const texts = (chatId: number) => h!.fake.messages(chatId).map((m) => m.text ?? '');
const codeIn = (text: string | undefined) => CODE.exec(text ?? '')?.[1];

describe('DM pairing on Telegram', () => {
  it('a stranger gets one live code and no model; /pair lets them in; the code works once', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    h.say({ chatId: SAM.id, from: SAM, text: 'hello, may I?' });
    await h.settled();
    const told = texts(SAM.id);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^👋 Hi! This Kazma answers only the people its operators let in\./);
    expect(told[0]).toContain('Your id: telegram:777.');
    const code = codeIn(told[0])!;
    expect(code).toBeDefined();
    expect(llm.requests).toHaveLength(0);

    // Asked again at once: the same live code, not told twice in a row.
    h.say({ chatId: SAM.id, from: SAM, text: 'hello?' });
    await h.settled();
    expect(texts(SAM.id)).toHaveLength(1);
    const codes = await h.database.db.select().from(pairingCodes);
    expect(codes.map((c) => [c.code, c.user])).toEqual([[code, 'telegram:777']]);

    // A user who is no operator may not pair anyone.
    h.say({ chatId: LINA.id, from: LINA, text: `/pair ${code}` });
    h.say({ chatId: MAYA.id, from: MAYA, text: '/pair ZZZZ2222' });
    await h.settled();
    expect(texts(LINA.id).at(-1)).toMatch(/operators only/);
    expect(texts(MAYA.id).at(-1)).toBe('⛔ Not paired: no such code.');

    h.say({ chatId: MAYA.id, from: MAYA, text: `/pair ${code.toLowerCase().slice(0, 4)}-${code.slice(4)}` });
    await h.settled();
    expect(texts(MAYA.id).at(-1)).toBe(
      '✅ Sam (telegram:777) may now talk to Kazma. See everyone let in with /config users.',
    );
    expect(texts(SAM.id).at(-1)).toMatch(/^✅ You are in/);
    h.say({ chatId: SAM.id, from: SAM, text: 'thanks!' });
    await h.settled();
    expect(texts(SAM.id).at(-1)).toBe('echo: thanks!');

    h.say({ chatId: MAYA.id, from: MAYA, text: `/pair ${code}` });
    await h.settled();
    expect(texts(MAYA.id).at(-1)).toBe('⛔ Not paired: that code was used already.');

    const audit = await h.database.db.select().from(configAudit).orderBy(configAudit.id);
    expect(audit.map((a) => [a.command, a.outcome, a.detail, a.actor.id])).toEqual([
      ['pairing code', 'changed', 'code issued to telegram:777', '777'],
      ['/pair', 'refused', 'unknown: ZZZZ2222', '42'],
      ['/pair', 'changed', 'telegram:777', '42'],
      ['/pair', 'refused', `used: ${code}`, '42'],
    ]);
  });

  it('an expired code is refused and the stranger gets a new one; a group gets the refusal, not a code', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, groups: 'all' });
    h.say({ chatId: SAM.id, from: SAM, text: 'hi' });
    await h.settled();
    const first = codeIn(texts(SAM.id)[0])!;
    await h.database.db.execute(sql`update pairing_codes set expires_at = now() - interval '1 second'`);
    h.say({ chatId: MAYA.id, from: MAYA, text: `/pair ${first}` });
    await h.settled();
    expect(texts(MAYA.id).at(-1)).toMatch(/^⛔ Not paired: that code has expired/);
    h.say({ chatId: SAM.id, from: SAM, text: 'hi again' });
    await h.settled();
    const second = codeIn(texts(SAM.id).at(-1))!;
    expect(second).not.toBe(first);

    const group = -1009000;
    h.say({ chatId: group, from: { id: 888, first_name: 'Zed' }, text: 'hello group' });
    await h.settled();
    expect(texts(group)).toEqual([expect.stringMatching(/^⛔ Sorry, you are not on this Kazma's access list/)]);
    expect(llm.requests).toHaveLength(0);
  });

  it('a paired person stays in across a restart until /config users remove', async () => {
    const database = await freshDatabase('pglite');
    const fake = await startFakeTelegram();
    try {
      h = await startHarness({ modelBaseUrl: llm.baseURL, database, fake });
      h.say({ chatId: SAM.id, from: SAM, text: 'hi' });
      await h.settled();
      h.say({ chatId: MAYA.id, from: MAYA, text: `/pair ${codeIn(texts(SAM.id)[0])}` });
      await h.settled();
      await h.close();
      h = await startHarness({ modelBaseUrl: llm.baseURL, database, fake });
      h.say({ chatId: SAM.id, from: SAM, text: 'after the restart' });
      await h.settled();
      expect(texts(SAM.id).at(-1)).toBe('echo: after the restart');
      h.say({ chatId: MAYA.id, from: MAYA, text: '/config users' });
      await h.settled();
      expect(texts(MAYA.id).at(-1)).toMatch(
        /^Users:\n• telegram:55 — in kazma\.yaml \(access\.users\)\n• telegram:777 \(Sam\) — paired by Maya on \d{4}-\d\d-\d\d\n/,
      );
      h.say({ chatId: MAYA.id, from: MAYA, text: '/config users remove telegram:777' });
      await h.settled();
      expect(texts(MAYA.id).at(-1)).toBe('telegram:777 may no longer talk to Kazma.');
      const before = llm.requests.length;
      h.say({ chatId: SAM.id, from: SAM, text: 'still there?' });
      await h.settled();
      expect(codeIn(texts(SAM.id).at(-1))).toBeDefined();
      expect(llm.requests.length).toBe(before);
    } finally {
      await h?.close();
      h = undefined;
      await fake.close();
      await database.dispose();
    }
  });

  it('access.pairing: false keeps the refusal', async () => {
    h = await startHarness({
      modelBaseUrl: llm.baseURL,
      config: {
        access: { operators: [{ name: 'Maya', telegram: String(MAYA.id) }], pairing: false },
      },
    });
    h.say({ chatId: SAM.id, from: SAM, text: 'hello' });
    await h.settled();
    expect(texts(SAM.id)).toEqual([expect.stringMatching(/^⛔ Sorry, you are not on this Kazma's access list/)]);
    expect(await h.database.db.select().from(pairingCodes)).toEqual([]);
  });
});

describe('DM pairing on Slack', () => {
  it('a stranger in a DM gets a code; an operator pairs them from their own DM', async () => {
    s = await slack.startSlackHarness({ modelBaseUrl: llm.baseURL });
    const dm = (user: { id: string }, text: string) =>
      s!.fake.signer.sendMessage(s!.url, { channel: slack.dmOf(user), user: user.id, text });
    const seen = (user: { id: string }) =>
      [
        ...s!.fake.messages(slack.dmOf(user)).filter((m) => m.user === s!.fake.identity.botUserId),
        ...s!.fake.ephemerals(slack.dmOf(user), user.id),
      ].sort((a, b) => Number(a.ts) - Number(b.ts));
    await dm(slack.SAM, 'hello');
    await s.settled();
    const code = codeIn(seen(slack.SAM).at(-1)?.text)!;
    expect(code).toBeDefined();
    expect(seen(slack.SAM).at(-1)?.text).toContain('Your id: slack:U0SAM.');
    expect(llm.requests).toHaveLength(0);
    await dm(slack.MAYA, `/pair ${code}`);
    await s.settled();
    expect(seen(slack.MAYA).at(-1)?.text).toBe(
      '✅ slack:U0SAM may now talk to Kazma. See everyone let in with /config users.',
    );
    await dm(slack.SAM, 'now?');
    await s.settled();
    expect(seen(slack.SAM).at(-1)?.text).toBe('echo: now?');
  });
});
