// What happens when an MCP server that was allowed to (`sampling: true` / `elicitation: true`) asks
// Kazma for something: a person decides first, on a card in every approvals.channels chat (first
// decision wins, like any question); only then is the model called for it. Nobody to ask, a denial,
// or no answer in time: the server is refused, and told why.
import { type ChatRef, ellipsis } from '../surface/index.ts';
import type { Questions } from '../decisions/index.ts';
import type { McpServerRequestHandler } from './connection.ts';

/** The question kind of these cards. */
export const MCP_REQUEST_QUESTION = 'mcp_request';

/** Writes a completion for a sampling request (the configured model, without tools). */
export type Sampler = (request: {
  system?: string;
  messages: Array<{ role: 'user' | 'assistant'; text: string }>;
  maxTokens?: number;
}) => Promise<{ text: string; model: string }>;

/** Options for {@link serverRequestHandler}. */
export interface ServerRequestOptions {
  questions: Questions;
  /** approvals.channels: where the cards go (the server's request belongs to no chat). */
  destinations: readonly ChatRef[];
  sample: Sampler;
  /** How long a card waits for a decision (approvals.timeout). */
  timeoutMs: number;
  pollMs?: number;
}

type SamplingParams = {
  messages?: Array<{ role?: string; content?: { type?: string; text?: string } }>;
  systemPrompt?: string;
  maxTokens?: number;
};
type ElicitParams = { message?: string; requestedSchema?: { properties?: Record<string, unknown> } };

export function serverRequestHandler(o: ServerRequestOptions): McpServerRequestHandler {
  return async ({ server, kind, params }) => {
    // Imported here, with the first request: a connected server has loaded the SDK already, and a start
    // without MCP servers never needs it.
    const { ErrorCode, McpError } = await import('@modelcontextprotocol/sdk/types.js');
    const refuse = (why: string): never => {
      throw new McpError(ErrorCode.InvalidRequest, `Kazma refused the ${kind} request: ${why}`);
    };
    if (o.destinations.length === 0) refuse('nobody can be asked (approvals.channels is empty)');
    const sampling = params as SamplingParams;
    const elicit = params as ElicitParams;
    const messages = (sampling.messages ?? []).map((m) => ({
      role: m.role === 'assistant' ? ('assistant' as const) : ('user' as const),
      text: m.content?.type === 'text' ? (m.content.text ?? '') : `(${m.content?.type ?? 'unknown'} content)`,
    }));
    const fields =
      kind === 'sampling'
        ? [
            { label: 'Prompt', value: clip(messages.map((m) => `${m.role}: ${m.text}`).join('\n')) },
            ...(sampling.systemPrompt ? [{ label: 'System', value: clip(sampling.systemPrompt) }] : []),
          ]
        : [{ label: 'Asks', value: clip(elicit.message ?? '') }];
    const question = await o.questions.ask({
      kind: MCP_REQUEST_QUESTION,
      title:
        kind === 'sampling'
          ? `MCP server "${server}" asks to use the model`
          : `MCP server "${server}" asks you something`,
      fields,
      options: [
        { id: 'allow', label: 'Allow', style: 'primary' },
        { id: 'deny', label: 'Deny', style: 'danger' },
      ],
      destinations: o.destinations,
      subject: { server, kind },
    });
    const decided = await waitForDecision(o, question.id);
    if (!decided) {
      await o.questions.close(question.id, 'Expired: nobody answered in time, so it was refused');
      refuse('nobody answered in time');
    }
    if (decided!.decision !== 'allow') {
      if (kind === 'elicitation') return { action: 'decline' };
      refuse(`denied by ${decided!.decidedBy ?? 'an operator'}`);
    }
    if (kind === 'elicitation') {
      // A card has buttons, not a form: a request that wants fields filled in cannot be answered from it.
      return Object.keys(elicit.requestedSchema?.properties ?? {}).length === 0
        ? { action: 'accept', content: {} }
        : { action: 'decline' };
    }
    const reply = await o.sample({
      messages,
      ...(sampling.systemPrompt && { system: sampling.systemPrompt }),
      ...(sampling.maxTokens && { maxTokens: sampling.maxTokens }),
    });
    return {
      role: 'assistant',
      content: { type: 'text', text: reply.text },
      model: reply.model,
      stopReason: 'endTurn',
    };
  };
}

async function waitForDecision(o: ServerRequestOptions, id: string) {
  // Elapsed time: the monotonic clock, which no change of the wall clock moves.
  const deadline = performance.now() + o.timeoutMs;
  while (performance.now() < deadline) {
    const question = await o.questions.get(id);
    if (question && question.state !== 'open') return question.state === 'decided' ? question : undefined;
    await new Promise((resolve) => setTimeout(resolve, o.pollMs ?? 500));
  }
  return undefined;
}

function clip(text: string, max = 500): string {
  return ellipsis(text, max);
}
