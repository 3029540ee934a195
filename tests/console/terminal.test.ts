// `kazma chat` writes text, never terminal commands. A model's reply once drew a fake card and hid the
// real `rm -r src` card with a conceal code; typing `o` approved it. Every write goes through one
// writer (src/adapters/console/terminal.ts) that shows control sequences as visible escapes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession, ConsoleSurface } from '../../src/adapters/console/index.ts';
import { terminalSafe } from '../../src/adapters/console/terminal.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { startTestCore, type TestCore } from '../agent/helpers/core.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

// What a terminal would obey: ESC (CSI, OSC, DCS start with it), the 8-bit C1 controls (U+009B is a
// CSI by itself), BEL, backspace, carriage return, vertical tab, form feed.
const obeyed = (text: string): number[] =>
  [...text].map((c) => c.codePointAt(0)!).filter((n) => (n < 0x20 && n !== 0x0a) || (n >= 0x7f && n <= 0x9f));

const HOSTILE =
  'done.\x1b[8m hidden \x1b[0m' + // conceal
  '\x1b]52;c;cm0gLXIgc3Jj\x07' + // OSC 52: write the clipboard
  '\x1b[2A\x1b[1;1H\x1b[2J' + // cursor up, home, clear the screen
  '\x1bP1$r0m\x1b\\' + // DCS
  '\x9b31m' + // 8-bit CSI
  'safe\rEVIL\b\b\b\bfine\x1b' + // overwrite tricks and a bare ESC
  ' مرحبا 👨‍👩‍👧';

describe('terminalSafe', () => {
  it('shows every control sequence as text and keeps Arabic, emoji and newlines', () => {
    const shown = terminalSafe(`${HOSTILE}\nnext line`);
    expect(obeyed(shown)).toEqual([]);
    expect(shown).toContain('\\u001B[8m hidden');
    expect(shown).toContain('\\u001B]52;c;cm0gLXIgc3Jj\\u0007');
    expect(shown).toContain('safe\\rEVIL\\b'.replace('\\b', '\\u0008'));
    expect(shown).toContain(' مرحبا 👨‍👩‍👧\nnext line');
  });
});

describe('kazma chat prints a hostile model reply', () => {
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
  });

  it('with no escape sequence reaching the terminal', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    const core = t.core;
    llm.script({ text: HOSTILE });
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk));
    const surface = new ConsoleSurface({ output, interactive: false });
    const detach = core.attachSurface(surface);
    const session = new ConsoleSession({
      pipeline: core.pipeline,
      surface,
      actor: core.access.consoleActor(),
      input,
      output,
      idle: () => core.idle(),
    });
    input.end('hello\n');
    await session.run();
    detach();
    expect(printed).toContain('kazma> done.\\u001B[8m hidden');
    expect(printed).toContain('مرحبا 👨‍👩‍👧');
    expect(obeyed(printed)).toEqual([]);
  });
});

describe('every terminal write in kazma chat goes through the one writer', () => {
  it('finds no other write, console call or readline output in src/adapters/console and src/cli', () => {
    const files = [
      ...readdirSync(join(REPO_ROOT, 'src/adapters/console')).map((f) => join('src/adapters/console', f)),
      'src/cli/commands/chat.ts',
    ].filter((f) => f.endsWith('.ts') && !f.endsWith('terminal.ts'));
    const writes =
      /\.write\(|\bconsole\.(log|info|warn|error)\(|process\.(stdout|stderr)\.write|\.prompt\(|\.setPrompt\(/;
    const found = files.flatMap((file) =>
      readFileSync(join(REPO_ROOT, file), 'utf8')
        .split('\n')
        .map((line, i) => ({ file, line: i + 1, text: line.trim() }))
        .filter(({ text }) => writes.test(text) && !text.startsWith('//') && !text.startsWith('*')),
    );
    // The prompts are Kazma's own constant words ('you> ', 'answer> '): readline echoes what is typed, and
    // a redraw (after a reminder printed above the prompt) writes those typed words again, nothing else.
    expect(
      found.filter(
        ({ text }) =>
          !/setPrompt\(this\.#o\.surface\.openCard\(\) \? 'answer> ' : 'you> '\)|lines\.prompt\((redraw)?\)/.test(text),
      ),
    ).toEqual([]);
  });
});
