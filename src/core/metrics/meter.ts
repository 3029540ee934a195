import { Counter, collectDefaultMetrics, Histogram, register as processRegistry, Registry } from 'prom-client';
import { labelOf, type ScrapeSources, watchBacklogs, watchLeases } from './scrape.ts';
import { platformOf } from './platform-label.ts';
import { Tracing, type TracingOptions } from './tracing.ts';

/** How a graph drive ended: answered, paused on a question, stopped by /stop, failed (the user told why). */
export type DriveOutcome = 'answered' | 'asked' | 'stopped' | 'failed';
/** How one tool call ended in the `tools` node. */
export type ToolOutcome = 'ok' | 'error' | 'unknown' | 'refused' | 'denied' | 'invalid';
/** A decision that won a gate (the gate's `decision`: approved once, always, or denied). */
export type ApprovalOutcome = 'once' | 'always' | 'deny';

/** Options for {@link Meter}. */
export interface MeterOptions {
  /** Gauges read when Prometheus scrapes (backlogs, queue depth); absent: only counters and process figures. */
  sources?: ScrapeSources;
  /** The spans' options (`tracing.content`); default: no content in spans. */
  tracing?: TracingOptions;
}

// Seconds: a drive with tools and an approval can take minutes; a model call is 0.1 s to a minute.
const DRIVE_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900];
const MODEL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120];
// A person answering: seconds to the 30-minute default of approvals.timeout, and past it for longer ones.
const DECISION_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1800, 3600, 14400];

/**
 * How often the event-loop lag monitor (nodejs_eventloop_lag_*) samples. prom-client's default, 10 ms,
 * wakes an idle process 100 times a second (~3.5 CPU-ms a second here, about 40 % of what an idle Kazma
 * costs: bench/footprint.ts); at 100 ms a block of the loop is still caught whenever a sample falls due
 * in it, and any block of 100 ms or more always.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * Kazma's own Prometheus figures, shown with the process's. One per assembled Kazma (assembleKazma builds it),
 * so two in-process Kazmas in a test never share counters. Labels are closed sets — platform, outcome,
 * provider, status class, tool name (only tools registered) — never a chat or a person, so the number of
 * series stays bounded however many chats there are.
 *
 * @example
 * const meter = new Meter({ sources });
 * meter.drive({ chat: 'telegram:42', outcome: 'answered', seconds: 1.2 });
 * await meter.text(); // the Prometheus text format
 */
export class Meter {
  /** Kazma's own figures: this Kazma's alone. */
  readonly #registry = new Registry();
  readonly #drives: Counter<'platform' | 'outcome'>;
  readonly #driveSeconds: Histogram<'platform'>;
  readonly #model: Counter<'provider' | 'status'>;
  readonly #modelSeconds: Histogram<'provider'>;
  readonly #tokens: Counter<'provider' | 'kind'>;
  readonly #tools: Counter<'tool' | 'outcome'>;
  readonly #requested: Counter;
  readonly #decided: Counter<'outcome'>;
  readonly #decisionSeconds: Histogram;
  readonly #expired: Counter;
  /** The turn's OpenTelemetry spans (no-ops unless an SDK is registered: src/assembly/tracing.ts). */
  readonly tracing: Tracing;

  constructor(options: MeterOptions = {}) {
    this.tracing = new Tracing(options.tracing ?? { content: false });
    const registers = [this.#registry];
    // The process's figures belong to the process, not to one Kazma: they are collected once, in
    // prom-client's own registry, however many Kazmas a process assembles (a test worker assembles
    // hundreds). Each collection keeps an event-loop monitor running that nothing can stop.
    if (!processRegistry.getSingleMetric('process_resident_memory_bytes'))
      collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    this.#drives = new Counter({
      name: 'kazma_turns_total',
      help: 'Graph drives (a message, or a resume after a decision), by platform and how they ended.',
      labelNames: ['platform', 'outcome'],
      registers,
    });
    this.#driveSeconds = new Histogram({
      name: 'kazma_turn_duration_seconds',
      help: 'Time of one graph drive, model and tools included.',
      labelNames: ['platform'],
      buckets: DRIVE_BUCKETS,
      registers,
    });
    this.#model = new Counter({
      name: 'kazma_model_requests_total',
      help: 'Model calls (retries included) by provider and status class: ok, 4xx, 5xx or transport.',
      labelNames: ['provider', 'status'],
      registers,
    });
    this.#modelSeconds = new Histogram({
      name: 'kazma_model_duration_seconds',
      help: 'Time of one model call with its retries.',
      labelNames: ['provider'],
      buckets: MODEL_BUCKETS,
      registers,
    });
    this.#tokens = new Counter({
      name: 'kazma_model_tokens_total',
      help: 'Tokens the providers reported, by kind: input or output.',
      labelNames: ['provider', 'kind'],
      registers,
    });
    this.#tools = new Counter({
      name: 'kazma_tool_calls_total',
      help: 'Tool calls by tool and outcome (ok, error, unknown, refused, denied, invalid).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.#requested = new Counter({
      name: 'kazma_approvals_requested_total',
      help: 'Approval gates opened.',
      registers,
    });
    this.#decided = new Counter({
      name: 'kazma_approvals_decided_total',
      help: 'Approval decisions that won their gate, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    this.#decisionSeconds = new Histogram({
      name: 'kazma_approval_decision_seconds',
      help: 'Time from a gate opened to the decision that won it.',
      buckets: DECISION_BUCKETS,
      registers,
    });
    this.#expired = new Counter({
      name: 'kazma_approvals_expired_total',
      help: 'Gates nobody decided in time (resumed as a denial).',
      registers,
    });
    if (options.sources) watchBacklogs(this.#registry, options.sources);
  }

  /** Shows how many leases this process holds at each scrape (the process's ThreadLeases, built after the meter). */
  watchLeases(leases: { heldCount(): Promise<number> }): void {
    watchLeases(this.#registry, leases);
  }

  /** One graph drive ended; `chat` is the run's origin (its platform is the label, never the chat). */
  drive(input: { chat: string | undefined; outcome: DriveOutcome; seconds: number }): void {
    const platform = platformOf(input.chat);
    this.#drives.inc({ platform, outcome: input.outcome });
    this.#driveSeconds.observe({ platform }, input.seconds);
  }

  /** One model of the chain was called (with its retries); `status` undefined: no HTTP answer. */
  modelCall(input: { provider: string; ok: boolean; status?: number; seconds: number; tokens?: TokenUse }): void {
    const provider = labelOf(input.provider);
    this.#model.inc({ provider, status: statusClass(input) });
    this.#modelSeconds.observe({ provider }, input.seconds);
    if (input.tokens?.input) this.#tokens.inc({ provider, kind: 'input' }, input.tokens.input);
    if (input.tokens?.output) this.#tokens.inc({ provider, kind: 'output' }, input.tokens.output);
  }

  /** One tool call ended; `tool` must be a registered tool's name (the caller says `unknown` otherwise). */
  toolCall(input: { tool: string; outcome: ToolOutcome }): void {
    this.#tools.inc({ tool: labelOf(input.tool), outcome: input.outcome });
  }

  approvalRequested(): void {
    this.#requested.inc();
  }

  /** A decision won its gate, `seconds` after the gate was opened. */
  approvalDecided(outcome: ApprovalOutcome, seconds: number): void {
    this.#decided.inc({ outcome });
    // The gate's row is dated by the database and the decision by the process: clocks a little apart.
    this.#decisionSeconds.observe(Math.max(0, seconds));
  }

  approvalExpired(count = 1): void {
    this.#expired.inc(count);
  }

  /** The Prometheus text exposition of every figure, gauges read now. */
  text(): Promise<string> {
    // Merged at each scrape, not once: gauges registered after construction (watchLeases) are shown too.
    return Registry.merge([processRegistry, this.#registry]).metrics();
  }

  get contentType(): string {
    return this.#registry.contentType;
  }
}

/** Tokens a provider reported for one call. */
export interface TokenUse {
  input?: number;
  output?: number;
}

function statusClass(input: { ok: boolean; status?: number }): string {
  if (input.ok) return 'ok';
  if (input.status === undefined) return 'transport';
  return input.status >= 500 ? '5xx' : input.status >= 400 ? '4xx' : 'other';
}
