// Small pure parts of the chat port and commands: ChatRef, the per-chat queue, command parsing.
import { describe, expect, it } from 'vitest';
import { ChatQueues } from '../../src/core/chat/index.ts';
import { chatOf, formatChatRef, InvalidChatRefError, isChatRef, parseChatRef } from '../../src/core/surface/index.ts';
import { formatUptime, parseCommand } from '../../src/core/commands/index.ts';
import { clipText, ellipsis } from '../../src/core/surface/text-split.ts';
import { sendInParts } from '../../src/core/surface/send-parts.ts';

describe('ChatRef', () => {
  it('parses and formats <platform>:<chat>[:<thread>]', () => {
    expect(parseChatRef('telegram:-100123:42')).toEqual({ platform: 'telegram', chat: '-100123', thread: '42' });
    expect(parseChatRef('slack:C0123')).toEqual({ platform: 'slack', chat: 'C0123' });
    expect(formatChatRef({ platform: 'slack', chat: 'C1', thread: '1712.0001' })).toBe('slack:C1:1712.0001');
    expect(chatOf('slack:C1:1712.0001')).toBe('slack:C1');
  });

  it('rejects malformed refs with a typed error', () => {
    for (const bad of ['telegram', 'a:b:c:d', 'a::b', 'a:b c', '']) {
      expect(() => parseChatRef(bad)).toThrow(InvalidChatRefError);
      expect(isChatRef(bad)).toBe(false);
    }
    expect(() => formatChatRef({ platform: 'x', chat: 'a:b' })).toThrow(InvalidChatRefError);
  });
});

describe('ChatQueues', () => {
  const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs one chat in arrival order, one at a time, and drops nothing', async () => {
    const queues = new ChatQueues();
    const log: string[] = [];
    let running = 0;
    const job = (name: string, ms: number) =>
      queues.run('c', async () => {
        running++;
        expect(running).toBe(1);
        log.push(`start ${name}`);
        await tick(ms);
        log.push(`end ${name}`);
        running--;
      });
    await Promise.all([job('a', 30), job('b', 5), job('c', 1)]);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('runs different chats concurrently, and a failure does not block the next item', async () => {
    const queues = new ChatQueues();
    const log: string[] = [];
    const slow = queues.run('x', async () => {
      await tick(40);
      log.push('x');
    });
    const fast = queues.run('y', async () => {
      log.push('y');
    });
    const failing = queues.run('z', async () => {
      throw new Error('boom');
    });
    const after = queues.run('z', async () => 'still runs');
    await expect(failing).rejects.toThrow('boom');
    expect(await after).toBe('still runs');
    await Promise.all([slow, fast]);
    expect(log).toEqual(['y', 'x']);
    await queues.idle();
    expect(queues.total).toBe(0);
  });
});

describe('parseCommand', () => {
  it('reads the name and arguments once', () => {
    expect(parseCommand('/config tools toggle shell')).toEqual({
      name: 'config',
      args: ['tools', 'toggle', 'shell'],
      rest: 'tools toggle shell',
    });
    expect(parseCommand('/Status@kazma_bot')).toEqual({ name: 'status', args: [], rest: '' });
  });

  it('leaves ordinary text and paths to the agent', () => {
    expect(parseCommand('hello /new')).toBeUndefined();
    expect(parseCommand('/tmp/x is too big')).toBeUndefined();
    expect(parseCommand('/')).toBeUndefined();
  });
});

describe('formatUptime', () => {
  it('prints the largest units first', () => {
    expect(formatUptime(5_000)).toBe('5s');
    expect(formatUptime(3_725_000)).toBe('1h 2m 5s');
    expect(formatUptime(90_061_000)).toBe('1d 1h 1m 1s');
  });
});

describe('clipText and ellipsis', () => {
  it('cut where a grapheme cluster ends: never half an emoji, a flag or a letter without its marks', () => {
    expect(clipText('ab😀', 3)).toBe('ab');
    expect(clipText('ab😀', 4)).toBe('ab😀');
    expect(clipText('x🇸🇦y', 3)).toBe('x');
    expect(clipText('مَرْحَبًا', 2)).toBe('مَ');
    expect(clipText('👩‍👩‍👧 family', 5)).toBe('');
    expect(ellipsis(`${'x'.repeat(118)}😀😀`, 120)).toBe(`${'x'.repeat(118)}…`);
    expect(ellipsis('short', 120)).toBe('short');
  });
});

describe('sendInParts (every adapter sends a long message through it)', () => {
  it('records each part, goes on after the delivered ones, and records nothing for one part', async () => {
    const posted: string[] = [];
    const recorded: Array<[number, string, number]> = [];
    const post = async (part: string) => {
      posted.push(part);
      return { chat: 'telegram:1' as const, id: `m-${part}` };
    };
    const progress = (delivered: number, first?: string) => ({
      delivered,
      ...(first && { first: { chat: 'telegram:1' as const, id: first } }),
      partSent: async (n: number, ref: { id: string }, of: number) => {
        recorded.push([n, ref.id, of]);
      },
    });
    expect(await sendInParts(['a', 'b', 'c'], post, progress(0))).toEqual({ chat: 'telegram:1', id: 'm-a' });
    expect(posted).toEqual(['a', 'b', 'c']);
    // Every part, the last included: a stop before the row is marked sent leaves it known complete.
    expect(recorded).toEqual([
      [1, 'm-a', 3],
      [2, 'm-a', 3],
      [3, 'm-a', 3],
    ]);
    posted.length = 0;
    recorded.length = 0;
    // A retry after part 2 was refused: only c goes out, and the reference is still the first part's.
    expect(await sendInParts(['a', 'b', 'c'], post, progress(2, 'm-a'))).toEqual({ chat: 'telegram:1', id: 'm-a' });
    expect(posted).toEqual(['c']);
    expect(recorded).toEqual([[3, 'm-a', 3]]);
    recorded.length = 0;
    await sendInParts(['only'], post, progress(0));
    expect(recorded).toEqual([]);
  });
});
