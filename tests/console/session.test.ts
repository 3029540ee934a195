// The console surface in-process: a ConsoleSession over streams, on the real core. Unknown and
// untiered tools must be asked about; the answer is the next line.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConsoleSession, ConsoleSurface, renderCard } from '../../src/adapters/console/index.ts';
import { defineTool } from '../../src/core/tools/define.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { contentText } from '../fakes/llm-wire.ts';
import { textPdf } from '../helpers/pdf.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestCore, type TestCore } from '../agent/helpers/core.ts';

let llm: FakeLlm;
let t: TestCore | undefined;
const untieredRuns: string[] = [];
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

const untiered = defineTool({
  name: 'untiered_tool',
  description: 'A tool whose author forgot the tier.',
  effects: false,
  input: z.object({ n: z.number() }),
  run: async ({ n }) => {
    untieredRuns.push(String(n));
    return `ran with ${n}`;
  },
});

/** Feeds `lines` to a console session on the core and returns everything it printed. */
async function converse(lines: string[], interactive = false): Promise<string> {
  const core = t!.core;
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk));
  const surface = new ConsoleSurface({ output, interactive });
  const detach = core.attachSurface(surface);
  const session = new ConsoleSession({
    pipeline: core.pipeline,
    surface,
    actor: core.access.consoleActor(),
    input,
    output,
    interactive,
    idle: () => core.idle(),
  });
  input.end(lines.map((l) => `${l}\n`).join(''));
  await session.run();
  detach();
  return printed;
}

describe('console session', () => {
  it('/attach <path> sends a file in: a PDF’s text reaches the model fenced; a missing file is said', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    const dir = await mkdtemp(join(tmpdir(), 'kazma-attach-'));
    await writeFile(join(dir, 'plan.pdf'), textPdf(['The plan for Thursday']));
    const out = await converse([`/attach ${join(dir, 'plan.pdf')}`, `/attach ${join(dir, 'gone.pdf')}`]);
    const user = [...(llm.requests.at(-1)?.messages ?? [])].reverse().find((m) => m.role === 'user');
    expect(contentText(user?.content)).toContain('📎 plan.pdf, 1 page');
    expect(contentText(user?.content)).toContain('The plan for Thursday');
    expect(out).toMatch(/kazma> ⚠️ .*gone\.pdf.* (does not exist|cannot be read)/);
    expect(llm.requests).toHaveLength(1);
  });

  it('prints where a file Kazma sent (send_file) is kept, with its caption', async () => {
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk));
    const surface = new ConsoleSurface({ output });
    const file = { name: 'chart.png', path: '/var/lib/kazma/files/ab12', size: 2048, sha256: 'ab12' };
    await surface.send('console:local', { text: 'the chart', file });
    expect(printed).toContain('kazma> 📎 chart.png (2048 bytes): /var/lib/kazma/files/ab12\n');
    expect(printed).toContain('the chart');
  });

  it('shows "thinking…" on a terminal while a turn runs, replaced by the reply; never on a pipe', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    llm.hangNext(1, 600);
    const onTerminal = await converse(['hello'], true);
    expect(onTerminal).toContain('⋯ thinking…\r\x1b[2Kkazma> echo: hello\n');
    const onPipe = await converse(['hello again']);
    expect(onPipe).not.toContain('thinking');
    expect(onPipe).toContain('kazma> echo: hello again\n');
  });

  it('asks about a tool the registry does not know, and a deny reaches the model', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    llm.script({ toolCalls: [{ name: 'teleport', args: { to: 'mars' } }] });
    const out = await converse(['beam me up', 'd']);
    expect(out).toContain(
      '[approval] Approve teleport?\n[approval]   Tool: teleport (tier: unknown)\n[approval]   Why: "teleport" is not a known tool, so a person must decide\n',
    );
    expect(out).toContain('[approval] [o]nce / [a]lways / [d]eny?\n');
    expect(out).toMatch(/\[approval\] Denied by maya on the console at \d\d:\d\d UTC\n/);
    expect(out).toMatch(/kazma> done: denied by maya\. The call did not run/);
  });

  it('asks about a registered tool without a tier and runs it only after "o"', async () => {
    t = await startTestCore({ baseURL: llm.baseURL, tools: [untiered] });
    llm.script({ toolCalls: [{ name: 'untiered_tool', args: { n: 7 } }] });
    const out = await converse(['run it', 'o', 'thanks']);
    expect(out).toContain('[approval]   Why: "untiered_tool" has no tier, so it needs approval');
    expect(out).toContain('[approval] Approved once by maya on the console');
    expect(untieredRuns).toEqual(['7']);
    expect(out.split('\n').filter((l) => l.startsWith('kazma> '))).toEqual([
      'kazma> done: ran with 7',
      'kazma> echo: thanks',
    ]);
  });

  it('treats a line that is not an answer as a new message that supersedes the question', async () => {
    t = await startTestCore({ baseURL: llm.baseURL, tools: [untiered] });
    llm.script({ toolCalls: [{ name: 'untiered_tool', args: { n: 9 } }] });
    const out = await converse(['run it', 'actually no']);
    expect(out).toContain('[approval] Superseded: the conversation moved on before anyone decided');
    expect(out).toContain('kazma> echo: actually no');
    expect(untieredRuns).not.toContain('9');
  });

  it('at a terminal, /stop typed while a turn runs ends that turn; the next line is answered', async () => {
    t = await startTestCore({ baseURL: llm.baseURL });
    const hold = llm.holdNext(1);
    const core = t.core;
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk));
    const surface = new ConsoleSurface({ output, interactive: true });
    const detach = core.attachSurface(surface);
    const session = new ConsoleSession({
      pipeline: core.pipeline,
      surface,
      actor: core.access.consoleActor(),
      input,
      output,
      interactive: true,
      idle: () => core.idle(),
    });
    const running = session.run();
    const calls = llm.attempts.length;
    input.write('think hard\n');
    await eventually(
      () => llm.attempts.length,
      (n) => n > calls,
      'the model call',
    );
    input.write('/stop\n');
    await eventually(
      () => printed,
      (text) => text.includes('kazma> ⏹ Stopped.'),
      'the stop notice',
    );
    hold.release();
    input.end('and now?\n');
    await running;
    detach();
    expect(printed).toContain('kazma> echo: and now?');
    expect(printed).not.toContain('Nothing is running');
  });

  it('renders a card greppably', () => {
    const text = renderCard({
      title: 'Approve shell?',
      fields: [{ label: 'args', value: 'line 1\nline 2' }],
      buttons: [
        { id: 'apv:g1:once', label: 'Once', style: 'primary' },
        { id: 'q:other', label: 'Other', style: 'secondary' },
        { id: 'q:only', label: 'Only', style: 'danger' },
      ],
    });
    // "Other" and "Only" cannot have "o" too: they get their position instead.
    expect(text.split('\n')).toEqual([
      '[approval] Approve shell?',
      '[approval]   args: line 1',
      '[approval]     line 2',
      '[approval] [o]nce / [2] other / [3] only?',
    ]);
  });

  it('labels only approval cards [approval]: a task status or an incident card is a [card]', () => {
    const status = renderCard({
      title: 'Task t1 is running',
      fields: [{ label: 'step', value: '2 of 3' }],
      buttons: [],
    });
    expect(status.split('\n')).toEqual(['[card] Task t1 is running', '[card]   step: 2 of 3']);
    const incident = renderCard({
      title: 'A task stalled',
      fields: [],
      buttons: [{ id: 'inc:i1:retry', label: 'Retry', style: 'primary' }],
    });
    expect(incident.split('\n')).toEqual(['[card] A task stalled', '[card] [r]etry?']);
  });
});
