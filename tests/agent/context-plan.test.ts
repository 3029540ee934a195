// The window's rules on their own: whole turns leave oldest first, a tool call never without its
// result, the current turn and pinned summaries always stay, and only a prefix is ever archived.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { approxTokensOf, fitRequest, planWindow, TRIM_TO } from '../../src/core/agent/graph/context-window.ts';
import { isSummary, summaryMessage } from '../../src/core/agent/graph/summary.ts';

const words = (n: number) => 'word '.repeat(n);
let next = 0;
const human = (text: string) => new HumanMessage({ content: text, id: `h${next++}` });
const ai = (text: string) => new AIMessage({ content: text, id: `a${next++}` });
const callAndResult = (id: string, output: string): BaseMessage[] => [
  new AIMessage({ content: '', id: `a${next++}`, tool_calls: [{ id, name: 'note', args: { text: id } }] }),
  new ToolMessage({ content: output, tool_call_id: id, id: `t${next++}` }),
];
const ids = (messages: BaseMessage[]) => messages.map((m) => m.id);

describe('planWindow', () => {
  it('archives the oldest whole turns, keeping tool calls with their results', () => {
    const turns = Array.from({ length: 6 }, (_, i) => [
      human(`q${i} ${words(20)}`),
      ...callAndResult(`c${i}`, words(40)),
      ai(`a${i}`),
    ]);
    const messages = turns.flat();
    const { archive, keep } = planWindow(messages, { budget: 200 });
    expect(approxTokensOf(keep)).toBeLessThanOrEqual(200);
    expect([...archive, ...keep]).toEqual(messages);
    // Cut on a turn boundary: what is kept starts with a person's message, and every result has its call.
    expect(HumanMessage.isInstance(keep[0]!)).toBe(true);
    expect(archive.length % 4).toBe(0);
  });

  it('keeps the current turn even when it alone is over budget, and pins summaries', () => {
    const summary = summaryMessage('what came before', 'x');
    const messages = [
      summary,
      human('old'),
      ai('old answer'),
      human(`now ${words(400)}`),
      ...callAndResult('c', words(400)),
    ];
    const { archive, keep } = planWindow(messages, { budget: 100, pinned: isSummary });
    expect(ids(archive)).toEqual(ids(messages.slice(1, 3)));
    expect(ids(keep)).toEqual(ids([summary, ...messages.slice(3)]));
  });
});

describe('planWindow over a growing conversation', () => {
  it('archives nothing while everything fits, and trims to TRIM_TO of the budget once it does not', () => {
    const turn = (i: number) => [human(`q${i} ${words(30)}`), ai(`a${i} ${words(30)}`)];
    const budget = 2_000;
    let state: BaseMessage[] = [];
    const trims: number[] = [];
    for (let i = 0; i < 120; i++) {
      state = [...state, ...turn(i)];
      const { archive, keep } = planWindow(state, { budget });
      expect([...archive, ...keep]).toEqual(state);
      expect(approxTokensOf(keep)).toBeLessThanOrEqual(budget);
      if (archive.length > 0) {
        trims.push(i);
        // A trim leaves room: the kept turns fit well under the budget, so the next turns add without trimming.
        expect(approxTokensOf(keep)).toBeLessThanOrEqual(Math.floor(budget * TRIM_TO));
      }
      state = keep;
    }
    // Each turn here costs ~86 of the 2,000 tokens, so 15 % of the budget holds ~3.5 turns: about one
    // trim in four turns. Trimming to just under the budget (as before) archived on every turn after
    // the first trim.
    const afterFirst = 120 - trims[0]!;
    expect(trims.length).toBeGreaterThan(1);
    expect(trims.length).toBeLessThanOrEqual(Math.ceil(afterFirst / 3));
  });
});

describe('fitRequest', () => {
  it('drops the oldest tool steps of an oversized turn from the request, never a call without its result', () => {
    const messages = [
      human('do three things'),
      ...callAndResult('c1', words(300)),
      ...callAndResult('c2', words(300)),
      ...callAndResult('c3', words(20)),
    ];
    const sent = fitRequest(messages, 200);
    expect(ids(sent)).toEqual(ids([messages[0]!, ...messages.slice(5)]));
    expect(fitRequest(messages, 10_000)).toEqual(messages);
  });
});

describe('images in the window', () => {
  it('counts an image as about a thousand tokens, whatever the length of its data: URL', () => {
    const url = `data:image/jpeg;base64,${'A'.repeat(400_000)}`;
    const photo = (n: number) =>
      new HumanMessage({
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url } },
        ],
        id: `p${n}`,
      });
    expect(approxTokensOf([photo(0)])).toBeGreaterThanOrEqual(1_000);
    expect(approxTokensOf([photo(1)])).toBeLessThan(1_100);
    // Ten photos do not fit 4,000 tokens: the oldest turns leave, though their text is a word each.
    const turns = Array.from({ length: 10 }, (_, i) => [photo(i + 2), ai('seen')]).flat();
    const { archive } = planWindow(turns, { budget: 4_000 });
    expect(archive.length).toBeGreaterThan(0);
  });
});
