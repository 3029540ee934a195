// The approval gate through the real graph: one question per gate run, the decision resumes exactly
// that interrupt, denials reach the model, and a new message supersedes a pending question.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { OPERATOR, startTestCore, transcript, type TestCore } from './helpers/core.ts';

let llm: FakeLlm;
let t: TestCore;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
beforeEach(async () => {
  llm.requests.length = 0;
  t = await startTestCore({ baseURL: llm.baseURL });
});
afterEach(async () => {
  await t.close();
});

const write = (path: string, content = 'hello') => ({ toolCalls: [{ name: 'write_file', args: { path, content } }] });
const file = (name: string) => join(t.workspace, name);

describe('approval of a danger tool', () => {
  it('asks with a card and runs the tool only after "once"', async () => {
    llm.script(write('a.txt'));
    await t.say('write a.txt');
    const card = t.surface.openCard();
    expect(card?.card.title).toBe('Approve write_file?');
    expect(card?.card.buttons.map((b) => b.label)).toEqual(['Approve', 'Always', 'Deny']);
    expect(existsSync(file('a.txt'))).toBe(false);
    expect(await t.core.approvals.list({ chat: 'telegram:42' })).toHaveLength(1);

    await t.tap('once');
    expect(readFileSync(file('a.txt'), 'utf8')).toBe('hello');
    expect(card?.edits.at(-1)?.footer).toMatch(/^Approved once by maya on Telegram at \d\d:\d\d UTC$/);
    expect(t.surface.texts().at(-1)).toBe('done: wrote 5 bytes to a.txt');
    expect(await t.core.approvals.list()).toHaveLength(0);
  });

  it('does not run a denied call and tells the model who denied it', async () => {
    llm.script(write('b.txt'));
    await t.say('write b.txt');
    await t.tap('deny');
    expect(existsSync(file('b.txt'))).toBe(false);
    const toolMessage = llm.requests.at(-1)?.messages?.at(-1);
    expect(toolMessage?.role).toBe('tool');
    expect(String(toolMessage?.content)).toMatch(/^denied by maya\. The call did not run/);
    expect(t.surface.openCard()).toBeUndefined();
  });

  it('asks one question per call, each resumed by its own interrupt id', async () => {
    llm.script({
      toolCalls: [
        { name: 'write_file', args: { path: 'one.txt', content: '1' } },
        { name: 'write_file', args: { path: 'two.txt', content: '2' } },
      ],
    });
    await t.say('write two files');
    const first = (await t.core.approvals.list())[0]!;
    expect(first.call.args).toMatchObject({ path: 'one.txt' });
    await t.tap('once');
    expect(existsSync(file('one.txt'))).toBe(false); // nothing runs until every call has a verdict
    const second = (await t.core.approvals.list())[0]!;
    expect(second.call.args).toMatchObject({ path: 'two.txt' });
    expect(second.interruptId).not.toBe(first.interruptId);
    await t.tap('deny');
    expect(readFileSync(file('one.txt'), 'utf8')).toBe('1');
    expect(existsSync(file('two.txt'))).toBe(false);
    const results = llm.requests
      .at(-1)!
      .messages!.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(results).toEqual(['wrote 1 bytes to one.txt', expect.stringMatching(/^denied by maya/)]);
  });

  it('answers a second tap with the real state and does not run the tool twice', async () => {
    llm.script(write('c.txt', 'x'));
    await t.say('write c.txt');
    const card = t.surface.openCard()!.card;
    await t.tap('once', { card });
    await t.tap('once', { card });
    expect(readFileSync(file('c.txt'), 'utf8')).toBe('x');
    expect(t.surface.privately.at(-1)?.text).toMatch(
      /^You already decided this: Approved once by maya on Telegram at \d\d:\d\d UTC\.$/,
    );
    expect(llm.requests).toHaveLength(2); // the tool call, then the answer to its result; no third turn
  });

  it('"always" lets the same call in this chat run later without asking', async () => {
    llm.script(write('d.txt', 'same'));
    await t.say('write d.txt');
    await t.tap('always');
    llm.script(write('d.txt', 'same'));
    await t.say('again');
    expect(t.surface.cards).toHaveLength(1);
    expect(t.surface.texts().at(-1)).toBe('done: wrote 4 bytes to d.txt');
  });

  it('refuses a call outside the workspace before any card exists, and tells the model why', async () => {
    llm.script(write('../escape.txt'));
    await t.say('write outside');
    expect(t.surface.cards).toHaveLength(0);
    const toolMessage = llm.requests.at(-1)?.messages?.at(-1);
    expect(String(toolMessage?.content)).toMatch(/^refused before any effect: .*outside the workspace/);
  });

  it('only operators may decide', async () => {
    const stranger = { platform: 'telegram', id: '555' };
    const t2 = await startTestCore({
      baseURL: llm.baseURL,
      config: { access: { operators: [{ name: 'maya', telegram: '42' }], users: ['telegram:555'] } },
    });
    try {
      llm.script(write('e.txt'));
      await t2.say('write e.txt', { actor: stranger });
      await t2.tap('once', { actor: stranger });
      expect(t2.surface.privately.at(-1)?.text).toBe('You cannot decide this: only operators may approve tool calls.');
      expect(existsSync(join(t2.workspace, 'e.txt'))).toBe(false);
      await t2.tap('once', { actor: OPERATOR });
      expect(existsSync(join(t2.workspace, 'e.txt'))).toBe(true);
    } finally {
      await t2.close();
    }
  });
});

describe('a new message while a question is pending', () => {
  it('supersedes the question, leaves the graph not waiting, and the model sees the new message', async () => {
    llm.script(write('f.txt'));
    await t.say('write f.txt');
    const card = t.surface.openCard()!;
    expect(await t.core.runner.inspect('telegram:42')).toMatchObject({ next: ['gate'], questions: 1 });
    await t.say('never mind, just say hi');

    expect(card.edits.at(-1)?.footer).toBe('Superseded: the conversation moved on before anyone decided');
    expect(await t.core.approvals.list()).toHaveLength(0);
    expect(await t.core.runner.inspect('telegram:42')).toMatchObject({ next: [], questions: 0 });
    expect(transcript(llm.requests.at(-1)!).slice(-3)).toEqual([
      'assistant:',
      'tool:not run: a new message arrived before this call was approved or run',
      'user:never mind, just say hi',
    ]);
    expect(t.surface.texts().at(-1)).toBe('echo: never mind, just say hi');

    // The old question is gone for good: its button now resumes nothing and the tool never runs.
    await t.tap('once', { card: card.card });
    expect(t.surface.privately.at(-1)?.text).toBe(
      'This question is closed. Superseded: the conversation moved on before anyone decided.',
    );
    expect(existsSync(file('f.txt'))).toBe(false);
    const requests = llm.requests.length;
    await t.say('still there?');
    expect(llm.requests).toHaveLength(requests + 1);
    expect(t.surface.texts().at(-1)).toBe('echo: still there?');
  });
});

describe('a question left pending by a restart', () => {
  it('survives it: the old card still decides it in the new process, and the tool runs once', async () => {
    const shared = await freshDatabase('pglite');
    const first = await startTestCore({ baseURL: llm.baseURL, database: shared });
    let second: TestCore | undefined;
    try {
      llm.script(write('g.txt'));
      await first.say('write g.txt');
      const oldCard = first.surface.openCard()!.card;
      await first.close();

      second = await startTestCore({ baseURL: llm.baseURL, database: shared, surface: first.surface });
      expect(await second.core.runner.inspect('telegram:42')).toMatchObject({ next: ['gate'], questions: 1 });
      expect(await second.core.approvals.list()).toHaveLength(1);
      await second.tap('once', { card: oldCard });
      expect(readFileSync(join(second.workspace, 'g.txt'), 'utf8')).toBe('hello');
      expect(second.surface.texts().at(-1)).toBe('done: wrote 5 bytes to g.txt');
      expect(second.surface.cards[0]!.edits.at(-1)?.footer).toMatch(/^Approved once by maya on Telegram/);
      expect(await second.core.runner.inspect('telegram:42')).toMatchObject({ next: [], questions: 0 });
      await second.tap('once', { card: oldCard });
      expect(second.surface.privately.at(-1)?.text).toMatch(/^You already decided this: Approved once by maya/);
      expect(llm.requests.filter((r) => r.messages?.at(-1)?.role === 'tool')).toHaveLength(1);
    } finally {
      await second?.close();
      await shared.dispose();
    }
  });
});
