// Long conversations through the real core (fake model server, real LangGraph and checkpointer, both
// databases): the model request stays within agent.context.max_tokens, a tool call travels with its
// result, what leaves the checkpoint is archived in order, /compact replaces older turns with a
// summary, and /new still starts clean.
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TranscriptArchive } from '../../src/core/agent/graph/archive.ts';
import { createCheckpointer, type Checkpointer } from '../../src/core/agent/checkpoint/checkpointer.ts';
import { defineTool } from '../../src/core/tools/define.ts';
import { startFakeLlm, type ChatRequestBody, type FakeLlm } from '../fakes/llm-server.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { CHAT, startTestCore, transcript, type TestCore } from './helpers/core.ts';

const MAX_TOKENS = 1_000;

/** The request's size counted independently of Kazma's counter: ~4 characters a token, 4 per message. */
function requestTokens(body: ChatRequestBody): number {
  return (body.messages ?? []).reduce((sum, m) => {
    const raw = m as { content?: unknown; tool_calls?: Array<{ function: { name: string; arguments: string } }> };
    const text = typeof raw.content === 'string' ? raw.content : '';
    const calls = (raw.tool_calls ?? []).reduce((n, c) => n + c.function.name.length + c.function.arguments.length, 0);
    return sum + 4 + Math.ceil((text.length + calls) / 4);
  }, 0);
}

/** Every assistant tool call in the request is answered right after it, and every tool result follows its call. */
function toolPairsIntact(body: ChatRequestBody): boolean {
  const messages = (body.messages ?? []) as Array<{
    role: string;
    tool_call_id?: string;
    tool_calls?: Array<{ id: string }>;
  }>;
  return messages.every((m, i) => {
    if (m.role === 'assistant' && m.tool_calls?.length) {
      const answered = new Set(messages.slice(i + 1, i + 1 + m.tool_calls.length).map((t) => t.tool_call_id));
      return m.tool_calls.every((c) => answered.has(c.id));
    }
    if (m.role === 'tool')
      return messages
        .slice(0, i)
        .some((a) => a.role === 'assistant' && a.tool_calls?.some((c) => c.id === m.tool_call_id));
    return true;
  });
}

const pad = (label: string) => `${label} ${'lorem ipsum '.repeat(16)}`;

for (const backend of BACKENDS) {
  describe(`long conversations (${backend})`, () => {
    let llm: FakeLlm;
    let kazma: TestCore;
    let checkpointer: Checkpointer;
    const notes: string[] = [];

    beforeAll(async () => {
      llm = await startFakeLlm();
      kazma = await startTestCore({
        baseURL: llm.baseURL,
        backend,
        config: { agent: { context: { max_tokens: MAX_TOKENS } } },
        tools: [
          defineTool({
            name: 'note',
            description: 'Notes a line.',
            tier: 'safe',
            effects: false,
            input: z.object({ text: z.string() }),
            run: async ({ text }) => {
              notes.push(text);
              return `noted ${text}`;
            },
          }),
        ],
      });
      checkpointer = await createCheckpointer(kazma.database);
    });
    afterAll(async () => {
      await checkpointer.close();
      await kazma.close();
      await llm.close();
    });

    const threadId = () => kazma.core.threads.current(CHAT);
    const stateMessages = async (): Promise<BaseMessage[]> => {
      const tuple = await checkpointer.saver.getTuple({ configurable: { thread_id: await threadId() } });
      return (tuple?.checkpoint.channel_values.messages as BaseMessage[] | undefined) ?? [];
    };

    it('keeps every request within the budget and the checkpoint bounded; what left it is archived in order', async () => {
      const turns = 30;
      for (let i = 0; i < turns; i++) await kazma.say(pad(`turn ${i}`));
      const requests = llm.requests.slice(-turns);
      expect(Math.max(...requests.map(requestTokens))).toBeLessThanOrEqual(MAX_TOKENS);
      // Each turn was answered, also after older turns left the checkpoint mid-drive.
      expect(kazma.surface.texts().filter((t) => t.startsWith('echo: turn '))).toHaveLength(turns);
      const last = transcript(requests.at(-1)!);
      expect(last.at(-1)).toBe(`user:${pad(`turn ${turns - 1}`)}`);
      expect(last[0]).toMatch(/^user:turn \d+ /);
      expect(last.join('\n')).not.toContain('turn 0 ');

      const kept = await stateMessages();
      expect(kept.length).toBeLessThan(20);
      const archived = await new TranscriptArchive(kazma.database.db).read(await threadId());
      expect(archived.every((a) => a.reason === 'window')).toBe(true);
      // Archive then checkpoint: the whole conversation, once each, in the order it was said.
      const said = [...archived.map((a) => a.message), ...kept].map(
        (m) => `${HumanMessage.isInstance(m) ? 'user' : 'assistant'}:${String(m.content)}`,
      );
      expect(said).toEqual(
        Array.from({ length: turns }, (_, i) => [
          `user:${pad(`turn ${i}`)}`,
          `assistant:echo: ${pad(`turn ${i}`)}`,
        ]).flat(),
      );
    });

    it('never sends a tool call without its result, or a result without its call', async () => {
      await kazma.say('/new');
      llm.setDefault((body) => {
        const lastMessage = body.messages?.at(-1);
        if (lastMessage?.role === 'tool') return { text: 'noted it' };
        return { toolCalls: [{ name: 'note', args: { text: pad(String(lastMessage?.content ?? '').slice(0, 12)) } }] };
      });
      const from = llm.requests.length;
      for (let i = 0; i < 12; i++) await kazma.say(`item ${i}`);
      const requests = llm.requests.slice(from);
      expect(requests).toHaveLength(24);
      expect(requests.every(toolPairsIntact)).toBe(true);
      expect(Math.max(...requests.map(requestTokens))).toBeLessThanOrEqual(MAX_TOKENS);
      // The window moved: the first items are no longer sent, and each request starts at a person's message.
      expect(transcript(requests.at(-1)!).join('\n')).not.toContain('item 0');
      expect(requests.every((r) => transcript(r)[0]?.startsWith('user:'))).toBe(true);
      expect(notes).toHaveLength(12);
    });

    it('/compact replaces the older turns with one summary the next request carries; /new starts clean', async () => {
      await kazma.say('/new');
      llm.setDefault((body) => ({ text: `echo: ${String(body.messages?.at(-1)?.content ?? '')}` }));
      for (const word of ['apples', 'pears', 'plums']) await kazma.say(word);
      llm.script({ text: 'SUMMARY: the person listed apples and pears.' });
      await kazma.say('/compact');
      expect(kazma.surface.texts().at(-1)).toBe(
        'Compacted 4 messages into a summary; the latest turn is kept as it was.',
      );
      expect(transcript(llm.requests.at(-1)!).join('\n')).toContain('Person: apples');

      await kazma.say('and figs');
      const request = llm.requests.at(-1)!;
      expect(transcript(request)).toEqual(['user:plums', 'assistant:echo: plums', 'user:and figs']);
      expect(String(request.messages?.[0]?.content)).toContain('SUMMARY: the person listed apples and pears.');
      const archived = await new TranscriptArchive(kazma.database.db).read(await threadId());
      expect(archived.map((a) => `${a.reason}:${String(a.message.content)}`)).toEqual([
        'compact:apples',
        'compact:echo: apples',
        'compact:pears',
        'compact:echo: pears',
      ]);
      expect((await stateMessages()).map((m) => String(m.content))).toEqual([
        'SUMMARY: the person listed apples and pears.',
        'plums',
        'echo: plums',
        'and figs',
        'echo: and figs',
      ]);

      await kazma.say('/new');
      await kazma.say('fresh start');
      expect(transcript(llm.requests.at(-1)!)).toEqual(['user:fresh start']);
      expect(String(llm.requests.at(-1)!.messages?.[0]?.content)).not.toContain('SUMMARY');
    });
  });
}
