import { randomUUID } from 'node:crypto';
import { Command, type Interrupt } from '@langchain/langgraph';
import { GATE_STATES } from '../../db/index.ts';
import type { ApprovalQuestion, Gate, ResumeDecision } from '../../approvals/index.ts';
import type { ChatRef } from '../../surface/index.ts';
import type { SentHandOff } from '../../outbox/index.ts';
import { chatRun, runOf, type RunRef } from '../../runs/index.ts';
import type { GateAnswer } from '../graph/gate-node.ts';
import type { AgentGraph } from '../graph/graph.ts';
import type { AgentStateValue } from '../graph/state.ts';
import type { AheadLease, LeaseHandOff } from '../../turns/index.ts';
import {
  anchorAtEnd,
  anchorAtTurn,
  closeCalls,
  hasQuestion,
  isNotice,
  newReplies,
  turnMessageId,
  unansweredCalls,
} from './transcript.ts';
import { humanMessage, type TurnInput } from './turn-input.ts';
import { TurnOutput } from './turn-output.ts';
import { endTurn } from './end-turn.ts';
import { configOf, GraphDrive, type DriveResult, type TurnRunnerOptions } from './graph-drive.ts';

export type { DriveResult, TurnRunnerOptions } from './graph-drive.ts';

/**
 * Runs turns on a thread (a {@link RunRef}): invokes the graph, delivers the replies to the run's
 * targets, hands an approval question to the broker, and resumes the graph — addressed to exactly that
 * interrupt id — when the broker says a decision won. Callers order work per queue (ChatQueues); every
 * graph drive holds the thread's lease, so two processes never run one thread at once.
 */
export class TurnRunner {
  readonly #o: TurnRunnerOptions;
  readonly #out: TurnOutput;
  readonly #graph: GraphDrive;

  constructor(options: TurnRunnerOptions) {
    this.#o = options;
    this.#out = new TurnOutput(options);
    this.#graph = new GraphDrive(options, this.#out);
  }

  /**
   * A new message. A run cut short by a crash in `tools` is finished first (its outcome, e.g. "effect
   * unknown", is reported). A pending question is superseded, its open tool calls are answered "not run",
   * and the new input starts a fresh run: LangGraph discards the interrupted task, so the thread is not
   * left waiting and the model sees the new message. `turnId` names the turn for good (the inbox gives
   * each message event one): when the thread shows this turn already began — the process stopped mid-turn
   * and the message is taken up again — it continues from its last checkpoint, its replies delivered once.
   * Options: who lets the thread's lease go, who records the replies sent; the lease taken with the row.
   */
  async message(
    input: TurnInput & { chat: ChatRef },
    options: { handOff?: LeaseHandOff; sentHandOff?: SentHandOff; ahead?: AheadLease } = {},
  ): Promise<void> {
    const current = () => this.#o.threads.current(input.chat);
    if (!this.#o.leases) return void (await this.turn(chatRun(input.chat, await current()), input));
    // The chat's thread is read with the first try for its lease (one statement where leases are rows).
    await this.#o.leases.runOnChat(
      input.chat,
      current,
      (threadId) => {
        const run = chatRun(input.chat, threadId);
        return this.#graph.shared(run, () => this.#turn(run, input, options.sentHandOff));
      },
      options,
    );
  }

  /** A new input on any run (a chat's message, a background task's goal); see {@link message}. */
  async turn(run: RunRef, input: TurnInput): Promise<DriveResult> {
    return this.#graph.leased(run, () => this.#turn(run, input));
  }

  /** A turn's words so far (a task's answer), and whether a model gave the last of them (false: a ⚠️ failure). */
  async turnAnswer(threadId: string, turnId: string): Promise<{ replies: string[]; answered: boolean }> {
    const values = (await this.#o.graph.getState(configOf(threadId))).values as Partial<AgentStateValue>;
    const messages = values.messages ?? [];
    const start = messages.findIndex((m) => m.id === turnMessageId(turnId));
    const replies = newReplies(messages, Math.max(0, start)).map((r) => r.text);
    // A turn that ended on Kazma's own notice (an effect whose outcome is unknown) did not reach its answer.
    return { replies, answered: values.answeredBy != null && !(messages.length > 0 && isNotice(messages.at(-1)!)) };
  }

  async #turn(run: RunRef, input: TurnInput, sent?: SentHandOff): Promise<DriveResult> {
    const turnId = input.turnId ?? randomUUID();
    const { threadId } = run;
    // Before anything is shown again: the answer comes in messages of its own.
    if (input.retaken) await this.#o.live?.interrupted(turnId);
    let snapshot = await this.#o.graph.getState(configOf(threadId));
    const values = snapshot.values as Partial<AgentStateValue>;
    if (values.turn?.id === turnId) return this.#continue(run, turnId, snapshot, sent);
    const human = await humanMessage({ ...this.#o, out: this.#out }, run, input, turnId, sent);
    if (!human) return { ok: true }; // a file alone that could not be read: the person was told why
    if (snapshot.next.includes('tools') && !hasQuestion(snapshot.tasks)) {
      const requester = values.turn?.requester ?? input.actor;
      await this.#graph.drive(run, null, requester); // its replies recorded at once: another drive follows
      snapshot = await this.#o.graph.getState(configOf(threadId));
    }
    if (hasQuestion(snapshot.tasks)) await this.#o.broker.supersede(threadId, 'a new message arrived first');
    const open = unansweredCalls((snapshot.values as Partial<AgentStateValue>).messages ?? []);
    const closing = closeCalls(open, 'a new message arrived before this call was approved or run');
    return this.#graph.drive(
      run,
      {
        messages: [...closing, human],
        verdicts: {},
        turn: { id: turnId, chat: run.origin ?? `thread:${threadId}`, requester: input.actor },
      },
      input.actor,
      {
        repliesFrom: anchorAtEnd((snapshot.values as Partial<AgentStateValue>).messages ?? []),
        phase: 'think',
        turn: turnId,
        ...(sent && { sent }),
      },
    );
  }

  /**
   * Ends a turn that cannot be finished (it stopped the process `turns.max_attempts` times): a question
   * it waits on is superseded, its open calls are answered "not run", and the thread is closed with
   * `text` as a notice — shown to the chat, never sent to the model as its own words — so the next
   * message starts clean instead of running the same step again. `ahead`: as for {@link message}.
   */
  async endTurn(
    input: { chat: ChatRef; turnId: string; text: string },
    options: { ahead?: AheadLease } = {},
  ): Promise<void> {
    const run = chatRun(input.chat, await this.#o.threads.current(input.chat));
    await this.#graph.leased(run, () => endTurn({ ...this.#o, out: this.#out }, run, input), options);
  }

  /** Takes up a turn that already began: ask its question again if unasked, run what is left, send its replies. */
  async #continue(
    run: RunRef,
    turnId: string,
    snapshot: Awaited<ReturnType<AgentGraph['getState']>>,
    sent?: SentHandOff,
  ): Promise<DriveResult> {
    const values = snapshot.values as AgentStateValue;
    const requester = values.turn?.requester ?? { platform: 'unknown', id: 'unknown' };
    const from = anchorAtTurn(values.messages, turnId);
    if (snapshot.next.length > 0 && !hasQuestion(snapshot.tasks))
      return this.#graph.drive(run, null, requester, { repliesFrom: from, turn: turnId, ...(sent && { sent }) });
    await this.#out.replies(run, values, from, sent);
    const question = snapshot.tasks.flatMap((task) => task.interrupts)[0] as Interrupt<ApprovalQuestion> | undefined;
    if (!question?.id || !question.value) return { ok: true };
    // The process may have stopped after the checkpoint paused and before the gate was written.
    const asked = (await this.#o.broker.list({ states: [...GATE_STATES], threadId: run.threadId })).some(
      (gate) => gate.interruptId === question.id,
    );
    if (!asked) await this.#graph.ask(run, question.id, requester, question.value);
    return { ok: true };
  }

  /** Resumes a claimed gate once (the claimed → resuming CAS decides who); used by decide and the reconciler. */
  async resumeClaimed(
    gate: Gate,
    resume: ResumeDecision,
    options: { alreadyResuming?: boolean; run?: RunRef } = {},
  ): Promise<DriveResult | undefined> {
    // After a crash mid-resume the gate is already `resuming`; resuming again is safe because effects
    // that started are in the journal and are reported, never repeated.
    if (!options.alreadyResuming && !(await this.#o.broker.beginResume(gate.gateId))) return undefined;
    const { rewritten } = gate.call;
    const answer: GateAnswer = { callId: gate.call.callId, ...resume, ...(rewritten && { rewritten }) };
    // The lease: while this resume runs, sweeps in other processes must not take the gate for abandoned.
    // It beats while waiting for the thread's lease too: another process's turn may hold the thread.
    const beat = setInterval(
      () => void this.#o.broker.heartbeat(gate.gateId, 'resuming').catch(() => {}),
      this.#o.heartbeatMs ?? 5_000,
    );
    const run = options.run ?? runOf(gate);
    let result: DriveResult;
    try {
      result = await this.#graph.leased(run, async () => {
        // A stop mid-resume may have left the graph past the question (its tool ran): it goes on from there.
        const past = options.alreadyResuming && (await this.unfinished(gate.threadId));
        if (past) return this.#graph.drive(run, null, gate.requester);
        return this.#graph.drive(run, new Command({ resume: { [gate.interruptId]: answer } }), gate.requester);
      });
    } finally {
      clearInterval(beat);
    }
    if (result.ok) await this.#o.broker.settle(gate.gateId);
    else await this.#o.broker.fail(gate.gateId, result.error);
    return result;
  }

  /** A question that timed out: the paused turn is resumed with a denial (fail closed) and the user is told. */
  async resumeExpired(gate: Gate, options: { run?: RunRef } = {}): Promise<DriveResult | undefined> {
    const run = options.run ?? runOf(gate);
    return this.#graph.leased(run, async () => {
      if (!(await this.waitingOn(gate.threadId)).includes(gate.interruptId)) return undefined;
      await this.#out.notice(run, `⏰ Nobody approved \`${gate.call.tool}\` in time, so it was not run.`);
      const answer: GateAnswer = {
        callId: gate.call.callId,
        decision: 'deny',
        reason: 'the approval expired: nobody decided in time',
      };
      return this.#graph.drive(run, new Command({ resume: { [gate.interruptId]: answer } }), gate.requester);
    });
  }

  /** Stops the drive running on `threadId` in this process as /stop does (a task cancelled); true if one ran. */
  stop(threadId: string): boolean {
    return this.#o.running?.stop(threadId, () => true) === 'stopped';
  }

  /** The thread's checkpoint has steps left to run and waits on no question: a run a stop cut short. */
  async unfinished(threadId: string): Promise<boolean> {
    const snapshot = await this.#o.graph.getState(configOf(threadId));
    return snapshot.next.length > 0 && !hasQuestion(snapshot.tasks);
  }

  /** The interrupt ids the thread's checkpoint is paused on (empty when it is not waiting). */
  async waitingOn(threadId: string): Promise<string[]> {
    const snapshot = await this.#o.graph.getState(configOf(threadId));
    return snapshot.tasks.flatMap((task) =>
      task.interrupts.map((i) => i.id).filter((id): id is string => typeof id === 'string'),
    );
  }

  /** `/new`: abandons the pending question, moves the chat to a fresh thread, returns its id. */
  async newThread(chat: ChatRef): Promise<string> {
    await this.#o.broker.supersede(await this.#o.threads.current(chat), 'the chat started a new conversation (/new)');
    return this.#o.threads.next(chat);
  }

  /** Where a chat's thread stands: the nodes it would run next and how many questions it waits on. */
  async inspect(chat: ChatRef): Promise<{ threadId: string; next: string[]; questions: number }> {
    const threadId = await this.#o.threads.current(chat);
    const snapshot = await this.#o.graph.getState(configOf(threadId));
    return {
      threadId,
      next: [...snapshot.next],
      questions: snapshot.tasks.reduce((n, task) => n + task.interrupts.length, 0),
    };
  }
}
