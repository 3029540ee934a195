// The messages reducer must return exactly what LangGraph's stock reducer returns, for every kind of
// update, whether or not the state it is given came from itself (its fast path) or from elsewhere.
import {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  RemoveMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { messagesStateReducer, REMOVE_ALL_MESSAGES, type Messages } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { conversationReducer } from '../../src/core/agent/graph/conversation-reducer.ts';

/** What the test compares: class, id and content of each message, in order. */
const shape = (messages: BaseMessage[]) => messages.map((m) => [m.getType(), m.constructor.name, m.id, m.content]);

/** A conversation the reducer built itself, so the next update takes its fast path. */
function reducedConversation(): BaseMessage[] {
  let state = conversationReducer([], [new HumanMessage({ id: 'h1', content: 'hello' })]);
  state = conversationReducer(state, [
    new AIMessage({ id: 'a1', content: 'hi', tool_calls: [{ id: 'c1', name: 'shell', args: {} }] }),
  ]);
  state = conversationReducer(state, [new ToolMessage({ id: 't1', tool_call_id: 'c1', content: 'done' })]);
  return conversationReducer(state, [new HumanMessage({ id: 'h2', content: 'مرحبا 👋' })]);
}

const updates: Array<[string, () => Messages]> = [
  ['one new message', () => [new AIMessage({ id: 'a2', content: 'answer' })]],
  ['a message without an id', () => new AIMessage('no id')],
  ['a replacement by id', () => [new AIMessage({ id: 'a1', content: 'edited' })]],
  [
    'removals of the oldest turn and an append',
    () => [
      new RemoveMessage({ id: 'h1' }),
      new RemoveMessage({ id: 'a1' }),
      new RemoveMessage({ id: 't1' }),
      new AIMessage({ id: 'a3', content: 'x' }),
    ],
  ],
  [
    'a removal then a re-add of the same id',
    () => [new RemoveMessage({ id: 'h2' }), new HumanMessage({ id: 'h2', content: 'back' })],
  ],
  [
    'the same new id twice (the later one wins)',
    () => [new AIMessage({ id: 'a7', content: 'first' }), new AIMessage({ id: 'a7', content: 'second' })],
  ],
  [
    'a removal and a replacement together',
    () => [new RemoveMessage({ id: 'h1' }), new AIMessage({ id: 'a1', content: 'edited' })],
  ],
  ['an append then its removal', () => [new AIMessage({ id: 'a4', content: 'gone' }), new RemoveMessage({ id: 'a4' })]],
  ['a chunk', () => [new AIMessageChunk({ id: 'a5', content: 'streamed' })]],
  [
    'a string and a message-like object',
    () => ['plain text', { role: 'assistant', content: 'like', id: 'a6' }] as Messages,
  ],
  [
    'remove-all then a message',
    () => [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage({ id: 'h9', content: 'fresh' })],
  ],
  ['nothing', () => []],
];

describe('conversationReducer', () => {
  for (const [name, update] of updates) {
    it(`matches messagesStateReducer on a state it built: ${name}`, () => {
      const ours = conversationReducer(reducedConversation(), update());
      const stock = messagesStateReducer(reducedConversation(), update());
      if (name === 'a message without an id' || name === 'a string and a message-like object') {
        // Both give the new message a fresh uuid; everything else must agree.
        expect(ours.length).toBe(stock.length);
        expect(shape(ours).map(([type, cls, , content]) => [type, cls, content])).toEqual(
          shape(stock).map(([type, cls, , content]) => [type, cls, content]),
        );
        expect(ours.every((m) => typeof m.id === 'string' && m.id.length > 0)).toBe(true);
      } else {
        expect(shape(ours)).toEqual(shape(stock));
      }
    });

    it(`matches messagesStateReducer on a state it did not build: ${name}`, () => {
      const read = (): Messages => [...reducedConversation()]; // a copy, as a checkpoint read gives
      const ours = conversationReducer(read(), update());
      const stock = messagesStateReducer(read(), update());
      expect(ours.map((m) => m.constructor.name)).toEqual(stock.map((m) => m.constructor.name));
      expect(ours.length).toBe(stock.length);
    });
  }

  it('refuses, as the stock reducer does, to remove a message that is not there', () => {
    const update = () => [new RemoveMessage({ id: 'nowhere' })];
    expect(() => messagesStateReducer(reducedConversation(), update())).toThrow(/doesn't exist/);
    expect(() => conversationReducer(reducedConversation(), update())).toThrow(/doesn't exist/);
  });

  it('leaves the state it was given untouched', () => {
    const state = reducedConversation();
    const before = shape(state);
    conversationReducer(state, [new RemoveMessage({ id: 'h1' }), new AIMessage({ id: 'h2', content: 'replaced' })]);
    expect(shape(state)).toEqual(before);
  });

  it('turns a chunk into its plain class and keeps later updates on the plain state', () => {
    let state = conversationReducer(reducedConversation(), [new AIMessageChunk({ id: 'a5', content: 'streamed' })]);
    expect(state.at(-1)!.constructor.name).toBe('AIMessage');
    state = conversationReducer(state, [new AIMessage({ id: 'a5', content: 'final' })]);
    expect(shape(state).at(-1)).toEqual(['ai', 'AIMessage', 'a5', 'final']);
  });
});
