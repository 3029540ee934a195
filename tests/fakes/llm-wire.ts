// Wire format of the fake LLM server: what a step means, and how it is written as an OpenAI Chat
// Completions response (one JSON body, or SSE chunks). Kept apart from the HTTP plumbing so each stays small.

/** One tool call the fake model makes. `id` defaults to `call_<n>`; `null` sends the call with no id at all. */
export interface FakeToolCall {
  name: string;
  args: Record<string, unknown>;
  id?: string | null;
}

/**
 * How a streamed answer (`stream: true`) is written, as a slow model writes it: one chunk per word, a
 * pause between chunks, or the whole event stream one byte per write (a split inside a UTF-8 character,
 * a JSON delta or an event line), so the client's reader must put it back together.
 */
export interface FakePacing {
  words?: boolean;
  delayMs?: number;
  bytes?: boolean;
  /** The connection is cut after this many events: a model that fails mid-answer. */
  cutAfter?: number;
}

/** What the fake model answers to one request: text, tool calls, or a function of the request body. */
export type FakeStep =
  | { text: string; pacing?: FakePacing }
  | { toolCalls: FakeToolCall[]; text?: string; pacing?: FakePacing }
  | ((body: ChatRequestBody) => FakeStep);

/** The parts of a Chat Completions request body the fake reads; the rest is kept as received. */
export interface ChatRequestBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: Array<{ role: string; content?: unknown; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  [key: string]: unknown;
}

type Resolved =
  | { text: string; pacing?: FakePacing }
  | { toolCalls: FakeToolCall[]; text?: string; pacing?: FakePacing };

/** Text of a message's content, whether a string or an array of `{ type: 'text', text }` parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('');
  }
  return '';
}

/**
 * The default behaviour: echo the last user message, but answer a tool result with `done: ...` so a
 * tool loop driven by the default always terminates.
 */
export function defaultStep(body: ChatRequestBody): FakeStep {
  const messages = body.messages ?? [];
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') return { text: `done: ${contentText(last.content)}` };
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  return { text: `echo: ${contentText(lastUser?.content)}` };
}

function resolve(step: FakeStep, body: ChatRequestBody): Resolved {
  // A function may return another function; unwrap until we reach data.
  let s = step;
  while (typeof s === 'function') s = s(body);
  return s;
}

// Crude but stable token counts: the client only needs numbers to parse.
const tokens = (s: string): number => Math.max(1, Math.ceil(s.length / 4));

export interface Rendered {
  id: string;
  model: string;
  created: number;
  text: string | null;
  toolCalls: Array<{ id: string | undefined; name: string; arguments: string }>;
  finish: 'stop' | 'tool_calls';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  pacing: FakePacing;
}

export function render(step: FakeStep, body: ChatRequestBody, seq: number): Rendered {
  const r = resolve(step, body);
  const toolCalls =
    'toolCalls' in r
      ? r.toolCalls.map((c, i) => ({
          id: c.id === null ? undefined : (c.id ?? `call_${seq}_${i}`),
          name: c.name,
          arguments: JSON.stringify(c.args),
        }))
      : [];
  const text = 'text' in r && r.text !== undefined ? r.text : null;
  const prompt = tokens(JSON.stringify(body.messages ?? []));
  const completion = tokens((text ?? '') + toolCalls.map((c) => c.arguments).join(''));
  return {
    id: `chatcmpl-fake-${seq}`,
    model: body.model ?? 'fake-model',
    created: Math.floor(Date.now() / 1000),
    text,
    toolCalls,
    finish: toolCalls.length > 0 ? 'tool_calls' : 'stop',
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    pacing: r.pacing ?? {},
  };
}

/** The non-streaming `chat.completion` body. */
export function completionJson(r: Rendered): object {
  const message: Record<string, unknown> = { role: 'assistant', content: r.text };
  if (r.toolCalls.length > 0) {
    message.tool_calls = r.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    id: r.id,
    object: 'chat.completion',
    created: r.created,
    model: r.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: r.finish }],
    usage: r.usage,
  };
}

/** The `data:` payloads of a streamed reply, ending with `[DONE]`; split so the client really reassembles. */
export function completionChunks(r: Rendered, includeUsage: boolean): string[] {
  const chunk = (delta: object, finish: string | null = null): string =>
    JSON.stringify({
      id: r.id,
      object: 'chat.completion.chunk',
      created: r.created,
      model: r.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  const out = [chunk({ role: 'assistant', content: '' })];
  if (r.text) for (const piece of r.pacing.words ? words(r.text) : halves(r.text)) out.push(chunk({ content: piece }));
  r.toolCalls.forEach((c, index) => {
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    for (const piece of halves(c.arguments))
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, r.finish));
  if (includeUsage) {
    out.push(
      JSON.stringify({
        id: r.id,
        object: 'chat.completion.chunk',
        created: r.created,
        model: r.model,
        choices: [],
        usage: r.usage,
      }),
    );
  }
  out.push('[DONE]');
  return out;
}

/** Each word with the space after it. */
export function words(s: string): string[] {
  return s.match(/\S+\s*|\s+/gu) ?? [];
}

export function halves(s: string): string[] {
  const mid = Math.ceil(s.length / 2);
  return [s.slice(0, mid), s.slice(mid)].filter((p) => p.length > 0);
}

/** An OpenAI-shaped error body for an injected failure of `status`. */
export function errorBody(status: number): object {
  const [type, code] =
    status === 401
      ? ['invalid_request_error', 'invalid_api_key']
      : status === 404
        ? ['invalid_request_error', 'model_not_found']
        : status === 429
          ? ['requests', 'rate_limit_exceeded']
          : status >= 500
            ? ['server_error', 'server_error']
            : ['invalid_request_error', 'invalid_request'];
  return { error: { message: `fake failure ${status}`, type, code, param: null } };
}
