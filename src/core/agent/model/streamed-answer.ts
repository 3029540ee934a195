// An OpenAI-compatible chat answer streamed by Kazma's fetch, below the SDK and LangChain: the request
// asks for a stream, each word is told to the live reply (answer-words.ts) as it arrives, and the SDK is
// handed one whole `chat.completion`, as if it had not streamed. Streamed through them instead, every
// word cost a server-sent event parsed by the SDK, a message chunk built and merged by LangChain and a
// callback round (bench/streaming.ts: over twice the CPU of the same answer sent whole); here a word costs
// one small JSON parse. The whole answer is the concatenation of the streamed deltas: what was shown is
// what the turn keeps.
import { randomUUID } from 'node:crypto';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { AnswerWords } from './answer-words.ts';

/** The fields of a `chat.completion.chunk` read here. */
interface CompletionChunk {
  id?: string;
  model?: string;
  created?: number;
  system_fingerprint?: string;
  usage?: unknown;
  choices?: Array<{
    index?: number;
    finish_reason?: string | null;
    delta?: {
      content?: string | null;
      refusal?: string | null;
      tool_calls?: Array<{
        index?: number;
        id?: string;
        type?: string;
        function?: { name?: string; arguments?: string };
      }>;
    };
  }>;
}

interface ToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}

/**
 * The body to send instead of `body` when a chat completion request may be streamed here: the same
 * request asking for a stream with its usage. Undefined for anything else (not a chat completion, a
 * body that is not JSON, a request that already streams).
 */
export function streamedRequestBody(url: URL, method: string, body: unknown): string | undefined {
  if (method !== 'POST' || !url.pathname.endsWith('/chat/completions') || typeof body !== 'string') return undefined;
  let request: Record<string, unknown>;
  try {
    request = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof request !== 'object' || request === null || request.stream === true) return undefined;
  return JSON.stringify({ ...request, stream: true, stream_options: { include_usage: true } });
}

/**
 * Reads a chat answer's event stream, piece by piece as `take` is handed them, telling `words` each piece of
 * the answer's text; `end` gives the whole answer as the JSON body of a `chat.completion`. An error event
 * throws (from `take` or `end`); whoever reads tells `failed` of any failure after `begin`.
 */
export class AnswerReader {
  readonly #call = randomUUID();
  readonly #words: AnswerWords;
  readonly #answer = new StreamedAnswer();
  readonly #decoder = new TextDecoder();
  readonly #parser: EventSourceParser;
  #error: Error | undefined;

  constructor(words: AnswerWords) {
    this.#words = words;
    this.#parser = createParser({
      onEvent: (event) => {
        if (this.#error || event.data === '[DONE]') return;
        const chunk = JSON.parse(event.data) as CompletionChunk & { error?: { message?: string } };
        if (chunk.error)
          this.#error = new Error(`the model's stream reported an error: ${chunk.error.message ?? 'unknown'}`);
        else {
          const text = this.#answer.add(chunk);
          if (text) words.write(this.#call, text);
        }
      },
    });
  }

  /** How long a piece of the answer may wait to be read (BatchedReads.everyMs). */
  get readEveryMs(): number {
    return Math.min(this.#words.readEveryMs ?? 0, READ_EVERY_MAX_MS);
  }

  /** Whether the answer has begun: words, a refusal or a tool call. */
  get begun(): boolean {
    return this.#answer.begun;
  }

  /** The answer's stream began: `readNow` reads what came of it (AnswerWords.reader). */
  begin(readNow: () => void): void {
    this.#words.begin(this.#call);
    this.#words.reader?.(this.#call, readNow);
  }

  take(bytes: Buffer): void {
    this.#parser.feed(this.#decoder.decode(bytes, { stream: true }));
    if (this.#error) throw this.#error;
  }

  end(): Buffer {
    this.#parser.feed(this.#decoder.decode());
    if (this.#error) throw this.#error;
    this.#words.ended(this.#call);
    return Buffer.from(JSON.stringify(this.#answer.whole()));
  }

  failed(): void {
    this.#words.failed(this.#call);
  }
}

/**
 * The longest a streamed answer's bytes wait to be read. Each read after a pause wakes the process, and a
 * wake-up costs far more than the few events it reads (bench/streaming.ts: about 0.4 CPU-ms an event read
 * as it came, a streamed turn 1.4× the CPU of the same answer sent whole; see docs/performance.md). Its
 * words are shown at most once an edit interval anyway (AnswerWords.readEveryMs), and a draft falling due
 * has them read first (AnswerWords.reader); this bounds how late the answer's end is read, which the final
 * message waits for. A read costs three wake-ups (its timer; the next event, which stops the socket; the
 * one after, which takes it out of epoll: libuv does that lazily), so 500 ms rather than 250: counted in
 * turns of bench/streaming.ts, 21 wake-ups a turn more than a whole answer's against 32.
 */
const READ_EVERY_MAX_MS = 500;

/** A chat completion put together from its chunks. */
class StreamedAnswer {
  #head: Pick<CompletionChunk, 'id' | 'model' | 'created' | 'system_fingerprint'> = {};
  #usage: unknown;
  #content = '';
  #refusal = '';
  #finish: string | null = null;
  readonly #calls: ToolCall[] = [];

  get begun(): boolean {
    return this.#content !== '' || this.#refusal !== '' || this.#calls.length > 0;
  }

  /** Takes one chunk in; returns the answer's text it adds. */
  add(chunk: CompletionChunk): string {
    this.#head.id ??= chunk.id;
    this.#head.model ??= chunk.model;
    this.#head.created ??= chunk.created;
    this.#head.system_fingerprint ??= chunk.system_fingerprint;
    if (chunk.usage) this.#usage = chunk.usage;
    let text = '';
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      if (choice.finish_reason) this.#finish = choice.finish_reason;
      const delta = choice.delta ?? {};
      if (delta.content) text += delta.content;
      if (delta.refusal) this.#refusal += delta.refusal;
      for (const part of delta.tool_calls ?? []) {
        const call = (this.#calls[part.index ?? 0] ??= {
          id: '',
          type: 'function',
          function: { name: '', arguments: '' },
        });
        if (part.id) call.id = part.id;
        if (part.type) call.type = part.type;
        if (part.function?.name) call.function.name += part.function.name;
        if (part.function?.arguments) call.function.arguments += part.function.arguments;
      }
    }
    this.#content += text;
    return text;
  }

  whole(): Record<string, unknown> {
    const calls = this.#calls.filter(Boolean);
    const message = {
      role: 'assistant',
      content: this.#content === '' && calls.length > 0 ? null : this.#content,
      ...(this.#refusal && { refusal: this.#refusal }),
      ...(calls.length > 0 && { tool_calls: calls }),
    };
    return {
      id: this.#head.id ?? `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: this.#head.created ?? 0,
      model: this.#head.model ?? '',
      ...(this.#head.system_fingerprint && { system_fingerprint: this.#head.system_fingerprint }),
      choices: [{ index: 0, message, finish_reason: this.#finish ?? 'stop', logprobs: null }],
      ...(this.#usage !== undefined && { usage: this.#usage }),
    };
  }
}
