// The Surface contract: what every chat platform adapter must do, driven end to end through a fake
// platform server, the real adapter and a real Kazma. Run it with `surfaceContract(name, makeDriver)`
// from one test file per platform (telegram.test.ts); the Slack and Discord adapters run it unchanged.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import type { BotMessage, ContractChat, DriverFactory, SurfaceDriver } from './driver.ts';
import { eventually } from '../helpers/eventually.ts';
import { lastUserText, longReply, UNICODE_SAMPLE } from './support.ts';

export function surfaceContract(name: string, makeDriver: DriverFactory): void {
  describe(`Surface contract: ${name}`, () => {
    let llm: FakeLlm;
    let d: SurfaceDriver;
    let dm: ContractChat;
    beforeAll(async () => {
      llm = await startFakeLlm();
    });
    afterAll(async () => {
      await llm.close();
    });
    beforeEach(async () => {
      llm.requests.length = 0;
      llm.attempts.length = 0;
      d = await makeDriver(llm);
      dm = d.dm(d.operator);
    });
    afterEach(async () => {
      await d.close();
    });

    const messages = (chat: ContractChat = dm) => d.botMessages(chat);
    const replyTo = (text: string, chat: ContractChat = dm) =>
      eventually(
        () => messages(chat),
        (ms) => ms.find((m) => m.text === text),
        `a bot message "${text}"`,
      );
    const openCard = (chat: ContractChat = dm) =>
      eventually(
        () => messages(chat),
        (ms) => [...ms].reverse().find((m) => m.buttons.length > 0),
        'a card with buttons',
      );
    const noteFile = () => join(d.workspace, 'note.txt');
    /**
     * The operator's first direct message answered (and, where the platform has no /start, welcomed): the
     * messages after it are the test's own. Returns how many bot messages came before.
     */
    const pastFirstMessage = async (): Promise<number> => {
      await d.userSays(d.operator, 'first');
      await replyTo('echo: first');
      return (await messages()).length;
    };
    /** A danger tool call whose effect shows how often it ran: each run appends one "x". */
    const scriptDangerCall = () =>
      llm.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'x', append: true } }] });

    it('answers a message with a reply', async () => {
      await d.userSays(d.operator, 'hello there');
      await replyTo('echo: hello there');
      expect(lastUserText(llm)).toBe('hello there');
    });

    it('splits a reply longer than the limit on paragraph boundaries, in order, nothing lost, bold intact', async () => {
      const reply = longReply(d.limit);
      const before = await pastFirstMessage();
      llm.script({ text: reply.markdown });
      await d.userSays(d.operator, 'tell me a long story');
      const parts = await eventually(
        async () => (await messages()).slice(before),
        (ms) => (ms.some((m) => m.text.includes(reply.lastLine)) ? ms : undefined),
        'the last line',
      );
      expect(parts.length).toBeGreaterThanOrEqual(3);
      for (const part of parts) {
        expect(part.text.length).toBeLessThanOrEqual(d.limit);
        expect(part.text.startsWith('Paragraph ')).toBe(true); // every cut fell between paragraphs
      }
      expect(parts.flatMap((p) => p.text.split('\n')).filter((line) => line !== '')).toEqual(reply.lines);
      expect(parts.flatMap((p) => p.bold)).toEqual(reply.bold);
    });

    it('round-trips Arabic with diacritics, emoji and RTL text byte-exact', async () => {
      await d.userSays(d.operator, UNICODE_SAMPLE);
      const reply = await replyTo(`echo: ${UNICODE_SAMPLE}`);
      expect(Buffer.from(reply.text)).toEqual(Buffer.from(`echo: ${UNICODE_SAMPLE}`));
      expect(Buffer.from(lastUserText(llm) ?? '')).toEqual(Buffer.from(UNICODE_SAMPLE));
    });

    it('shows an approval card with buttons for a danger tool call, and runs nothing yet', async () => {
      scriptDangerCall();
      await d.userSays(d.operator, 'write the note');
      const card = await openCard();
      expect(card.buttons).toHaveLength(3);
      expect(card.text).toContain('write_file');
      expect(existsSync(noteFile())).toBe(false);
    });

    it('settles on an approver’s tap: the tool runs once, the card is edited, the turn goes on', async () => {
      scriptDangerCall();
      await d.userSays(d.operator, 'write the note');
      const card = await openCard();
      await d.tap(d.operator, dm, card, 'once');
      await replyTo('done: appended 1 bytes to note.txt');
      const edited = await settledCard(card);
      expect(edited.text).toMatch(new RegExp(`Approved once by ${d.operator.name}`));
      expect(readFileSync(noteFile(), 'utf8')).toBe('x');
      await d.settled();
      expect(await d.unansweredTaps()).toBe(0);
    });

    it('refuses a non-approver’s tap privately and changes nothing', async () => {
      scriptDangerCall();
      await d.userSays(d.operator, 'write the note');
      const card = await openCard();
      const requestsBefore = llm.requests.length;
      await d.tap(d.member, dm, card, 'once');
      await d.tap(d.stranger, dm, card, 'once');
      await eventually(
        () => d.privateAnswers(d.member),
        (a) => a.find((t) => /cannot decide/i.test(t)),
        'the member’s refusal',
      );
      await eventually(
        () => d.privateAnswers(d.stranger),
        (a) => a.find((t) => /access list/i.test(t)),
        'the stranger’s refusal',
      );
      await d.settled();
      const now = (await messages()).find((m) => m.id === card.id)!;
      expect(now.buttons).toEqual(card.buttons);
      expect(now.edits).toBe(card.edits);
      expect(existsSync(noteFile())).toBe(false);
      expect(llm.requests.length).toBe(requestsBefore);
      expect(await d.unansweredTaps()).toBe(0);
      expect((await messages()).filter((m) => /cannot decide|access list/i.test(m.text))).toEqual([]); // not said in the chat
    });

    it('answers a second tap with "already decided by …" and runs the tool once', async () => {
      scriptDangerCall();
      await d.userSays(d.operator, 'write the note');
      const card = await openCard();
      await d.tap(d.operator, dm, card, 'once');
      await d.tap(d.operator2, dm, card, 'deny');
      const answer = await eventually(
        () => d.privateAnswers(d.operator2),
        (a) => a.find((t) => /already decided/i.test(t)),
        'the second tapper’s answer',
      );
      expect(answer).toMatch(new RegExp(`approved once by ${d.operator.name}`, 'i'));
      await replyTo('done: appended 1 bytes to note.txt');
      await settledCard(card);
      await d.settled();
      expect(readFileSync(noteFile(), 'utf8')).toBe('x');
      expect(await d.unansweredTaps()).toBe(0);
    });

    it('processes a redelivered platform event once', async () => {
      await d.userSays(d.operator, 'count me once');
      await replyTo('echo: count me once');
      await d.settled();
      const requests = llm.requests.length;
      await d.redeliverLast();
      await d.settled();
      expect(llm.requests.length).toBe(requests);
      expect((await messages()).filter((m) => m.text === 'echo: count me once')).toHaveLength(1);
    });

    it('retries a 429 after its retry_after and delivers the message once', async () => {
      await pastFirstMessage();
      d.injectRateLimit(1);
      await d.userSays(d.operator, 'slow down');
      await replyTo('echo: slow down');
      const [limited, delivered] = (await d.sendAttempts(dm)).slice(-2);
      expect(limited).toMatchObject({ ok: false, status: 429 });
      expect(delivered).toMatchObject({ ok: true });
      expect(delivered!.at - limited!.at).toBeGreaterThanOrEqual(950);
      await d.settled();
      expect((await messages()).filter((m) => m.text === 'echo: slow down')).toHaveLength(1);
    });

    it('runs /help, /new, /status, /incidents and /approvals', async () => {
      await d.userSays(d.operator, '/help');
      const help = await eventually(
        () => messages(),
        (ms) => ms.find((m) => m.text.startsWith('Commands:')),
        '/help',
      );
      for (const command of ['/help', '/new', '/status', '/approvals', '/incidents'])
        expect(help.text).toContain(command);
      await d.userSays(d.operator, '/status');
      await eventually(
        () => messages(),
        (ms) => ms.find((m) => /^Kazma status\n[\s\S]*pending approvals: 0[\s\S]*incidents: none open/.test(m.text)),
        '/status',
      );
      await d.userSays(d.operator, '/incidents');
      await replyTo('No open incidents: all background work is moving.');
      await d.userSays(d.operator, '/new');
      await eventually(
        () => messages(),
        (ms) => ms.find((m) => m.text.startsWith('Started a new conversation')),
        '/new',
      );
      await d.userSays(d.operator, '/approvals');
      await replyTo('No approvals are waiting in this chat.');
      expect(llm.requests).toHaveLength(0);

      scriptDangerCall();
      await d.userSays(d.operator, 'write the note');
      const card = await openCard();
      await d.userSays(d.operator, '/approvals');
      await replyTo('1 approval waiting in this chat:');
      const again = await eventually(
        () => messages(),
        (ms) => ms.filter((m) => m.buttons.length > 0 && m.id !== card.id)[0],
        'the card shown again',
      );
      await d.tap(d.operator, dm, again, 'once');
      await replyTo('done: appended 1 bytes to note.txt');
      await settledCard(card);
      await d.settled();
      expect(readFileSync(noteFile(), 'utf8')).toBe('x');
      expect(await d.unansweredTaps()).toBe(0);
    });

    it('runs /config tools toggle for operators only: the model stops being offered the tool; the command never reaches it', async () => {
      await d.userSays(d.member, '/config tools toggle write_file');
      await eventually(
        () => d.privateAnswers(d.member),
        (a) => a.find((t) => t === '/config is for operators only.'),
        'the member’s refusal',
      );
      await d.userSays(d.operator, '/config tools toggle write_file');
      await replyTo('write_file is off: the model is not offered it from the next message (saved; survives restarts).');
      expect(llm.requests).toHaveLength(0);
      await d.userSays(d.operator, 'hello');
      await replyTo('echo: hello');
      expect((llm.requests.at(-1)!.tools ?? []).map((t) => t.function.name)).not.toContain('write_file');
      await d.userSays(d.operator, '/config tools toggle write_file');
      await replyTo(
        'write_file is on again: the model is offered it from the next message (saved; survives restarts).',
      );
    });

    it('welcomes a person once, before the answer to their first direct message (Telegram: /start does)', async () => {
      await d.userSays(d.operator, 'first words');
      await replyTo('echo: first words');
      await d.userSays(d.operator, 'second words');
      await replyTo('echo: second words');
      const texts = (await messages()).map((m) => m.text);
      const welcome = texts.filter((text) => text.startsWith('👋 Hello! I am Kazma'));
      if (d.opensWithStart) {
        expect(welcome).toEqual([]);
        await d.userSays(d.operator, '/start');
        await eventually(
          () => messages(),
          (ms) => ms.some((m) => m.text.startsWith('👋 Hello! I am Kazma')),
          'the welcome /start gives',
        );
        return;
      }
      expect(welcome).toHaveLength(1);
      expect(texts.indexOf(welcome[0]!)).toBeLessThan(texts.indexOf('echo: first words'));
      expect(welcome[0]).toContain('You are an operator here');
      expect(welcome[0]).toMatch(/Your id: (slack|discord):\S+ \(for access in kazma\.yaml\)/);
    });

    it('ignores its own messages', async () => {
      await d.selfSays('echo: talking to myself');
      await d.settled();
      expect(llm.requests).toHaveLength(0);
      expect(await messages()).toEqual([]);
    });

    it('tells an unknown sender in private once, with a pairing code (access.pairing); nothing reaches the agent', async () => {
      await d.userSays(d.stranger, 'hi, who are you?');
      await d.userSays(d.stranger, 'hello??');
      await d.settled();
      const said = await d.privateAnswers(d.stranger);
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(
        /^👋 Hi! This Kazma answers only the people its operators let in\..*\/pair [A-Z2-9]{8} /s,
      );
      expect(llm.requests).toHaveLength(0);
    });

    /** Waits until `card` shows no buttons any more (its final state). */
    function settledCard(card: BotMessage): Promise<BotMessage> {
      return eventually(
        () => messages(),
        (ms) => ms.find((m) => m.id === card.id && m.buttons.length === 0 && m.edits > card.edits),
        'the card edited to its final state',
      );
    }
  });
}
