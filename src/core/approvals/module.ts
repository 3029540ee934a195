import type { AccessPolicy, ChatQueues } from '../chat/index.ts';
import type { ChatRef } from '../surface/index.ts';
import type { Clock } from '../clock.ts';
import type { ChatCommand, StatusSection } from '../commands/index.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import type { ActionRouter, FirstDecisionWins } from '../decisions/index.ts';
import type { JobKinds, JobQueue, SweepStep } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import type { Meter } from '../metrics/index.ts';
import { runQueue } from '../runs/index.ts';
import { parseApprovalActionId, showAllText } from './card.ts';
import { approvalCommands, approvalStatus } from './commands.ts';
import { ApprovalDecider, type GateResumer } from './decide.ts';
import { DurableApprovalBroker } from './durable-broker.ts';
import { Escalations } from './escalation.ts';
import { ApprovalPolicies } from './policy.ts';
import { ApprovalReconciler, type ResumingRunner } from './reconciler.ts';

/** What the approval broker needs (built before the agent, which asks it questions). */
export interface ApprovalBrokerDeps {
  loaded: LoadedConfig;
  db: Db;
  decisions: FirstDecisionWins;
  access: AccessPolicy;
  clock: Clock;
  logger: Logger;
  /** Where a policy's escalation timers run (approvals.policies[].escalate_after); absent: no timers. */
  jobs?: { queue: JobQueue; kinds: JobKinds };
}

/** The durable broker for `approvals.*`: who may decide comes from `access`. */
export function createApprovalBroker({
  loaded,
  db,
  decisions,
  access,
  clock,
  logger,
  jobs,
}: ApprovalBrokerDeps): DurableApprovalBroker {
  const { approvals, access: operators } = loaded.config;
  const escalations =
    jobs &&
    new Escalations({
      db,
      decisions,
      jobs: jobs.queue,
      clock,
      logger,
      secrets: loaded.secrets,
      // An operator's private chat: on Telegram their id is the chat; on Slack a user id opens the DM.
      chatOf: (name) => {
        const o = operators.operators.find((op) => op.name === name);
        return o?.telegram ? `telegram:${o.telegram}` : o?.slack ? `slack:${o.slack}` : undefined;
      },
    });
  if (escalations) jobs.kinds.register(escalations.job);
  return new DurableApprovalBroker({
    db,
    decisions,
    logger,
    secrets: loaded.secrets,
    clock,
    channels: approvals.channels as ChatRef[],
    policies: new ApprovalPolicies(approvals),
    ...(escalations && { escalations }),
    timeoutMs: approvals.timeout,
    grantTtlMs: approvals.grant_ttl,
    mayDecide: (actor, requester) => access.approvalRefusal(actor, requester),
    operatorName: (actor) => access.operatorOf(actor)?.name,
  });
}

/** What the rest of the approvals module needs, once the runner exists. */
export interface ApprovalsDeps {
  loaded: LoadedConfig;
  broker: DurableApprovalBroker;
  decisions: FirstDecisionWins;
  runner: GateResumer & ResumingRunner;
  queues: ChatQueues;
  actions: ActionRouter;
  /** The process's figures: decisions and expiries are counted here. */
  meter?: Meter;
  clock: Clock;
  logger: Logger;
}

/** The approvals module: deciding, healing, its commands, its /status line and its sweep step. */
export interface ApprovalsModule {
  decider: ApprovalDecider;
  reconciler: ApprovalReconciler;
  commands: ChatCommand[];
  status: StatusSection;
  sweep: SweepStep;
}

/** Builds deciding and healing around the broker, and registers the `apv` buttons. */
export function createApprovals({
  loaded,
  broker,
  decisions,
  runner,
  queues,
  actions,
  clock,
  logger,
  meter,
}: ApprovalsDeps): ApprovalsModule {
  const decider = new ApprovalDecider({ broker, runner, queues, decisions, ...(meter && { meter }) });
  const reconciler = new ApprovalReconciler({
    ...(meter && { meter }),
    broker,
    runner,
    queues,
    staleAfterMs: loaded.config.approvals.lease_ttl,
    clock,
    logger,
  });
  actions.register('apv', {
    async route(actionId) {
      const parsed = parseApprovalActionId(actionId);
      const gate = parsed && (await broker.get(parsed.gateId));
      if (!parsed || !gate) return undefined;
      // Show all decides nothing: every argument, to the tapper alone, at once (no queue to wait in).
      if ('showAll' in parsed)
        return {
          run: ({ actor, via }) => decisions.tell(via, actor, showAllText(gate, loaded.secrets), { whole: true }),
        };
      return {
        queue: runQueue(gate),
        // A reason comes only with a Deny from a form (a Slack or Discord modal); the broker checks it is not blank.
        run: async ({ actor, via, eventKey, tapped, reason }) => {
          const why = parsed.decision === 'deny' && reason?.trim();
          const input = {
            ...parsed,
            actor,
            via,
            seen: gate,
            eventKey,
            ...(tapped && { tapped }),
            ...(why && { reason: why }),
          };
          await decider.decideNow(input);
        },
      };
    },
  });
  const port = {
    pending: async (chat: ChatRef) => (await broker.list({ chat })).map((gate) => gate.gateId),
    repost: (gateId: string, chat: ChatRef) => broker.repost(gateId, chat),
    decide: (input: Parameters<ApprovalDecider['decide']>[0]) => decider.decide(input),
    grants: (chat: ChatRef) => broker.grants(chat),
    revokeGrant: (id: string) => broker.revokeGrant(id),
    history: (chat: ChatRef, questions: number) => broker.history({ chat, limit: questions, secrets: loaded.secrets }),
  };
  return {
    decider,
    reconciler,
    commands: approvalCommands(port),
    status: approvalStatus(port),
    sweep: {
      name: 'approvals',
      run: async () => {
        await reconciler.sweep();
        await broker.escalations?.overdue();
      },
    },
  };
}
