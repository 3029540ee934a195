// `/stop`: ends the chat's running turn at once, whatever it is doing (a model call, a shell command),
// leaves the thread consistent for the next message, and is for the requester or an operator only.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestCore, transcript, type TestCore } from '../agent/helpers/core.ts';

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

const LINA = { platform: 'telegram', id: '55' };

/** The pids of processes running `program args` (by the program's base name; a sandboxed one is seen too). */
function processesRunning(program: string, args: string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [first = '', ...rest] = readFileSync(join('/proc', entry, 'cmdline'), 'utf8')
        .split('\0')
        .slice(0, -1);
      if (basename(first) === program && rest.join(' ') === args.join(' ')) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe('/stop', () => {
  it('with nothing running says so', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    await t.say('/stop');
    expect(t.surface.texts()).toEqual(['Nothing is running in this chat, so there is nothing to stop.']);
  });

  it('aborts the model call of the running turn, for its requester or an operator only', async () => {
    t = await startTestCore({
      baseURL: llm.baseURL,
      config: { access: { operators: [{ name: 'maya', telegram: '42' }], users: ['telegram:55'] } },
    });
    await t.say('hi');
    const hold = llm.holdNext(1);
    const turn = t.say('think hard');
    await eventually(
      () => llm.attempts.length,
      (n) => n === 2,
      'the second model call',
    );
    await t.say('/stop', { actor: LINA });
    expect(t.surface.texts().at(-1)).toBe('Only the one who asked, or an operator, may stop this turn.');
    await t.say('/stop');
    await turn;
    await eventually(
      () => llm.attempts[1]!.closedAt,
      (at) => at,
      'the model connection to close',
      2_000,
    );
    hold.release();
    expect(t.surface.texts().slice(1)).toEqual([
      'Only the one who asked, or an operator, may stop this turn.',
      '⏹ Stopped.',
    ]);
    await t.say('and now?');
    expect(t.surface.texts().at(-1)).toBe('echo: and now?');
    expect(transcript(llm.requests.at(-1)!)).toEqual([
      'user:hi',
      'assistant:echo: hi',
      'user:think hard',
      'user:and now?',
    ]);
  });

  it('during a shell command ends the process, and a call not yet started does not start', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    llm.script({
      toolCalls: [
        { name: 'shell', args: { command: 'sleep 41.7' } },
        { name: 'shell', args: { command: 'touch never.txt' } },
      ],
    });
    await t.say('wait a while, then leave a mark');
    // One question per call: the second is asked once the first is answered; then both run, in order.
    await t.tap('once');
    const resumed = t.tap('once');
    const [pid] = await eventually(
      () => processesRunning('sleep', ['41.7']),
      (pids) => pids.length > 0 && pids,
      'the sleep to start in its sandbox',
    );
    await t.say('/stop');
    await resumed;
    await eventually(
      () => existsSync(`/proc/${pid}`),
      (alive) => !alive,
      'the sleep to end',
      2_000,
    );
    expect(processesRunning('sleep', ['41.7'])).toEqual([]);
    expect(existsSync(join(t.workspace, 'never.txt'))).toBe(false);
    expect(t.surface.texts().filter((text) => text.includes('Stopped'))).toEqual(['⏹ Stopped.']);
    // The thread is consistent: both calls answered, the next message goes to the model as usual.
    await t.say('what happened?');
    expect(t.surface.texts().at(-1)).toBe('echo: what happened?');
    const sent = transcript(llm.requests.at(-1)!);
    expect(sent[0]).toBe('user:wait a while, then leave a mark');
    expect(sent.filter((line) => line.startsWith('tool:'))).toEqual([
      expect.stringMatching(/^tool:(\[cancelled\]|effect unknown)/),
      'tool:not run: the turn was stopped (/stop)',
    ]);
    expect(sent.at(-1)).toBe('user:what happened?');
  });
});
