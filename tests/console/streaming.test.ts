// At a terminal the answer is printed as the model writes it, and the finished answer reads exactly as
// the same answer printed whole; on a pipe (scripts reading `kazma> ` lines) it is printed whole.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConsoleSurface } from '../../src/adapters/console/index.ts';

const CHAT = 'console:local';

function terminal(interactive: boolean) {
  let out = '';
  const output = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  return { surface: new ConsoleSurface({ output, interactive }), out: () => out };
}

const progress = { delivered: 0, partSent: async () => {} };

describe('the terminal chat streams', () => {
  it('prints the words as they come, and the whole answer ends as it would have been printed whole', async () => {
    const answer = 'Hello world 👋\nمرحبا, line two.';
    const live = terminal(true);
    const ref = await live.surface.showDraft!(CHAT, { text: 'Hello', written: 'Hello' });
    expect(live.out()).toBe('kazma> Hello');
    await live.surface.showDraft!(CHAT, { text: 'Hello world 👋\nمر', written: 'Hello world 👋\nمر' }, ref);
    expect(live.out()).toBe('kazma> Hello world 👋\nkazma> مر');
    await live.surface.send(CHAT, { text: answer }, { ...progress, draft: ref });
    const whole = terminal(true);
    await whole.surface.send(CHAT, { text: answer });
    expect(live.out()).toBe(whole.out());
  });

  it('a retry that rewrote the words starts a new line instead of mixing them', async () => {
    const live = terminal(true);
    const ref = await live.surface.showDraft!(CHAT, { text: 'first try', written: 'first try' });
    await live.surface.showDraft!(CHAT, { text: 'second', written: 'second' }, ref);
    await live.surface.send(CHAT, { text: 'second answer' }, { ...progress, draft: ref });
    expect(live.out()).toBe('kazma> first try\nkazma> second answer\n');
  });

  it('escape sequences in the words are shown, never obeyed, even split across prints', async () => {
    const live = terminal(true);
    const ref = await live.surface.showDraft!(CHAT, { text: 'a\x1b', written: 'a\x1b' });
    await live.surface.showDraft!(CHAT, { text: 'a\x1b[8mhidden', written: 'a\x1b[8mhidden' }, ref);
    expect(live.out()).not.toContain('\x1b');
    expect(live.out()).toContain('\\u001B[8mhidden');
  });

  it('on a pipe nothing is streamed: scripts read whole lines', () => {
    expect(terminal(false).surface.showDraft).toBeUndefined();
  });
});
