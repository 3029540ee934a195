// OpenTelemetry spans for a turn, its model calls, its tools and each approval's wait, written through the
// OpenTelemetry API: with no SDK registered (no OTEL_EXPORTER_OTLP_ENDPOINT, see src/assembly/tracing.ts)
// every call here is a no-op. Names and attributes follow the GenAI semantic conventions where they have one.
import { platformOf } from './platform-label.ts';
import { type Attributes, type Span, SpanKind, type SpanOptions, SpanStatusCode, trace } from '@opentelemetry/api';

/** Options for {@link Tracing}. */
export interface TracingOptions {
  /** `tracing.content`: prompts' answers and tool arguments go into spans (off: only names, sizes, outcomes). */
  content: boolean;
}

/** What a model call's span is told when it ends. */
export interface ModelCallEnd {
  ok: boolean;
  /** A failure's HTTP status; none: no HTTP answer. */
  status?: number;
  tokens?: { input?: number; output?: number };
  /** The answer's text (exported only with `tracing.content`). */
  text?: string;
}

const TRACER = 'kazma';

/**
 * The spans Kazma writes. Child spans need the turn's span to be the active one: {@link turn} runs the drive
 * inside it, and the model and tool spans started meanwhile (in the same async context) are its children.
 */
export class Tracing {
  readonly #content: boolean;

  constructor(options: TracingOptions) {
    this.#content = options.content;
  }

  /** Runs one graph drive inside an `invoke_agent kazma` span; `work` says how the drive ended. */
  turn<T>(run: { chat: string | undefined }, work: () => Promise<{ value: T; outcome: string }>): Promise<T> {
    const attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'kazma',
      'kazma.platform': platformOf(run.chat),
    };
    return inSpan('invoke_agent kazma', { attributes }, async (span) => {
      const { value, outcome } = await work();
      span.setAttribute('kazma.turn.outcome', outcome);
      if (outcome === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
      return value;
    });
  }

  /** Runs one model's call (its retries included) inside a `chat <model>` span. */
  model<T>(call: { provider: string; model: string }, work: (end: (e: ModelCallEnd) => void) => Promise<T>) {
    const attributes: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': call.provider,
      'gen_ai.request.model': call.model,
    };
    return inSpan(`chat ${call.model}`, { kind: SpanKind.CLIENT, attributes }, (span) =>
      work((e) => {
        if (e.tokens?.input !== undefined) span.setAttribute('gen_ai.usage.input_tokens', e.tokens.input);
        if (e.tokens?.output !== undefined) span.setAttribute('gen_ai.usage.output_tokens', e.tokens.output);
        if (this.#content && e.text !== undefined) span.setAttribute('kazma.output.text', e.text);
        if (!e.ok) {
          span.setAttribute('error.type', e.status === undefined ? 'transport' : String(e.status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
      }),
    );
  }

  /** Runs one tool call inside an `execute_tool <name>` span; `work` says how it ended. */
  tool<T>(call: { name: string; id: string; args: unknown }, work: () => Promise<{ value: T; outcome: string }>) {
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.call.id': call.id,
      ...(this.#content && { 'gen_ai.tool.call.arguments': JSON.stringify(call.args) }),
    };
    return inSpan(`execute_tool ${call.name}`, { attributes }, async (span) => {
      const { value, outcome } = await work();
      span.setAttribute('kazma.tool.outcome', outcome);
      if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR });
      return value;
    });
  }

  /**
   * An approval's wait, from its gate opening to the decision that won it: written when decided (the wait
   * outlives processes, so no span is held open meanwhile), with the gate's own times.
   */
  approvalWait(wait: { tool: string; outcome: string; openedAt: Date; decidedAt: Date }): void {
    const attributes = { 'gen_ai.tool.name': wait.tool, 'kazma.approval.outcome': wait.outcome };
    trace
      .getTracer(TRACER)
      .startSpan('kazma.approval.wait', { attributes, startTime: wait.openedAt })
      .end(wait.decidedAt);
  }
}

/**
 * Runs `work` inside an active span (the spans started meanwhile are its children), ending it however `work`
 * ends; a throw is recorded on the span and thrown on.
 */
function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
