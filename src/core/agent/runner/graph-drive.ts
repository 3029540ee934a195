// One drive of the graph on a thread, and the lease and shared checkpoint read it runs under: the steps
// every TurnRunner entry point (a message, a resume, an expiry) ends in.
import { INTERRUPT } from '@langchain/langgraph';
import type { ApprovalBroker, ApprovalQuestion } from '../../approvals/index.ts';
import type { MediaReader } from '../../media/index.ts';
import type { DriveOutcome, Meter } from '../../metrics/index.ts';
import type { SentHandOff } from '../../outbox/index.ts';
import type { RunRef } from '../../runs/index.ts';
import type { Actor } from '../../surface/index.ts';
import { type AheadLease, type ThreadLeases, type ThreadStore, TurnInterruptedError } from '../../turns/index.ts';
import type { SharedLatestReads } from '../checkpoint/shared-reads.ts';
import type { AgentGraph } from '../graph/graph.ts';
import type { AgentStateValue } from '../graph/state.ts';
import type { EffectJournal } from '../../effects/index.ts';
import type { LiveReplies } from '../../streaming/index.ts';
import { invokePhased, type DriveOutput, type DrivePhase, type GraphInput } from './invoke-phased.ts';
import type { RunningTurns } from './running-turns.ts';
import { endStoppedTurn } from './stopped-turn.ts';
import { anchorAtEnd, type RepliesAnchor } from './transcript.ts';
import type { TurnOutput, TurnOutputOptions } from './turn-output.ts';

/** Options for {@link TurnRunner}. */
export interface TurnRunnerOptions extends TurnOutputOptions {
  graph: AgentGraph;
  threads: ThreadStore;
  broker: ApprovalBroker;
  /** Aborted at shutdown: running model calls and tools stop. */
  signal?: AbortSignal;
  /** How often a running resume renews its lease on the gate; default 5 s (keep it well under approvals.lease_ttl). */
  heartbeatMs?: number;
  /** Graph steps per invocation before giving up; default 100 (each gate question is a step). */
  recursionLimit?: number;
  /**
   * One runner per thread across every process on the database; without it, only this process's queues order a thread.
   */
  leases?: Pick<ThreadLeases, 'run' | 'runOnChat'>;
  /** Reads a message's files (core/media); absent: only the text of a message with files goes on. */
  media?: Pick<MediaReader, 'read'>;
  /** Shows a chat's answer while the model writes it (core/streaming); absent: the answer lands whole. */
  live?: Pick<LiveReplies, 'open' | 'interrupted'>;
  /**
   * Lets a leased drive read its thread's checkpoint once for the runner and the graph (BatchedPostgresSaver.reads).
   */
  reads?: Pick<SharedLatestReads, 'share'>;
  /** The drives running now, so `/stop` can end one; absent: drives cannot be stopped. */
  running?: Pick<RunningTurns, 'track' | 'stop'>;
  /** Where a stopped drive reads its open calls' receipts (the graph's effect journal). */
  journal?: Pick<EffectJournal, 'lookup'>;
  /** Counts each drive (by platform and outcome, with its time) and each question asked; absent: not counted. */
  meter?: Pick<Meter, 'drive' | 'approvalRequested' | 'tracing'>;
}

/** How a drive of the graph ended: it ran (maybe pausing on a question), or it failed and the user was told. */
export type DriveResult = { ok: true } | { ok: false; error: string };

/** Drives the graph for a {@link TurnRunner}; holds no state of its own but the options. */
export class GraphDrive {
  readonly #o: TurnRunnerOptions;
  readonly #out: TurnOutput;

  constructor(options: TurnRunnerOptions, out: TurnOutput) {
    this.#o = options;
    this.#out = out;
  }

  /**
   * Runs `work` holding the thread's lease (when leases are configured). Holding it, nobody else writes
   * the thread, so its checkpoint, read here, need not be read again by the graph. `ahead`: a lease taken
   * with the row this run is for, held instead of taking one when it is on this thread.
   */
  leased<T>(run: RunRef, work: () => Promise<T>, options: { ahead?: AheadLease } = {}): Promise<T> {
    const shared = () => this.shared(run, work);
    return this.#o.leases ? this.#o.leases.run(run.threadId, shared, options) : shared();
  }

  /** `work` on a thread whose lease is held: the graph reuses the runner's read of its checkpoint. */
  shared<T>(run: RunRef, work: () => Promise<T>): Promise<T> {
    return this.#o.reads ? this.#o.reads.share(run.threadId, work) : work();
  }

  async ask(run: RunRef, interruptId: string, requester: Actor, call: ApprovalQuestion): Promise<void> {
    await this.#o.broker.open({
      threadId: run.threadId,
      interruptId,
      ...(run.origin && { chat: run.origin }),
      requester,
      call,
    });
    this.#o.meter?.approvalRequested();
  }

  /**
   * Invokes the graph once for `input` (durability by `phase`: invoke-phased.ts) and delivers what it said.
   * `turn`: the turn's id, under which the messages its answer is streamed into are recorded.
   */
  async drive(
    run: RunRef,
    input: GraphInput,
    requester: Actor,
    options: { repliesFrom?: RepliesAnchor; phase?: DrivePhase; sent?: SentHandOff; turn?: string } = {},
  ): Promise<DriveResult> {
    const started = performance.now();
    const drive = () => this.#drive(run, input, requester, options);
    const { result, outcome } = this.#o.meter
      ? await this.#o.meter.tracing.turn({ chat: run.origin }, async () => {
          const driven = await drive();
          return { value: driven, outcome: driven.outcome };
        })
      : await drive();
    // A shutdown's interruption throws past here: not an outcome, the next start takes the turn up.
    const seconds = (performance.now() - started) / 1000;
    this.#o.meter?.drive({ chat: run.origin, outcome, seconds });
    return result;
  }

  async #drive(
    run: RunRef,
    input: GraphInput,
    requester: Actor,
    options: { repliesFrom?: RepliesAnchor; phase?: DrivePhase; sent?: SentHandOff; turn?: string },
  ): Promise<{ result: DriveResult; outcome: DriveOutcome }> {
    const { threadId } = run;
    const config = configOf(threadId);
    const values =
      options.repliesFrom && options.turn
        ? undefined
        : ((await this.#o.graph.getState(config)).values as Partial<AgentStateValue>);
    // By id, not position: the model node may move older turns out of the checkpoint during this drive.
    const before = options.repliesFrom ?? anchorAtEnd(values?.messages ?? []);
    // A resume, or a run going on after a stop, drives the turn its checkpoint names: its drafts are recorded
    // under it, and those a drive of it that died left half-written say so first (a message's own first
    // drive, taken up again, was healed by TurnRunner before it).
    const turnId = options.turn ?? values?.turn?.id;
    if (!options.turn && turnId !== undefined) await this.#o.live?.interrupted(turnId);
    this.#out.typing(run);
    let result: DriveOutput;
    // LangGraph adds an abort listener to the signal it is given and never removes it: give each turn
    // its own signal that follows the shared shutdown one, so listeners do not pile up turn after turn.
    const turn = new AbortController();
    const follow = () => turn.abort(this.#o.signal?.reason);
    if (this.#o.signal?.aborted) follow();
    else this.#o.signal?.addEventListener('abort', follow, { once: true });
    // `/stop` aborts the same controller, and says so: the drive then ends the turn as stopped.
    const tracked = this.#o.running?.track(threadId, requester, turn);
    // Only where the answer goes back to the chat it came from: that chat sees it as it is written.
    const live = run.deliverTo[0] === run.origin ? this.#o.live?.open(run.origin, turnId, requester) : undefined;
    try {
      result = await invokePhased(this.#o.graph, input, {
        threadId,
        phase: options.phase ?? 'act',
        recursionLimit: this.#o.recursionLimit ?? 100,
        signal: turn.signal,
        ...(live && { live }),
      });
    } catch (error) {
      tracked?.end();
      await live?.close();
      // Stopped by a person: the turn ends here, as done, with what it said so far.
      if (tracked?.stopped) {
        const { graph, journal } = this.#o;
        await endStoppedTurn({ graph, out: this.#out, ...(journal && { journal }) }, run, {
          before,
          live,
          sent: options.sent,
        });
        await live?.done();
        return { result: { ok: true }, outcome: 'stopped' };
      }
      // Stopped by a shutdown: not a failure to report. The checkpoint and the inbox keep the turn, and
      // the next start takes it up from there.
      if (this.#o.signal?.aborted) throw new TurnInterruptedError(threadId, error);
      await this.#out.notice(run, this.#out.failureText(error, threadId));
      await live?.done();
      const message = error instanceof Error ? error.message : String(error);
      return { result: { ok: false, error: message }, outcome: 'failed' };
    } finally {
      tracked?.end();
      this.#o.signal?.removeEventListener('abort', follow);
    }
    await live?.close();
    await this.#out.replies(run, result, before, options.sent, live);
    await live?.done();
    const question = result[INTERRUPT]?.[0];
    if (!question?.id || !question.value) return { result: { ok: true }, outcome: 'answered' };
    await this.ask(run, question.id, requester, question.value);
    return { result: { ok: true }, outcome: 'asked' };
  }
}

/** The graph's config for a thread. */
export const configOf = (threadId: string) => ({ configurable: { thread_id: threadId } });
