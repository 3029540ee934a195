import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Every state a gate can be in; only transitionGate() (core/approvals/transition.ts) writes it. */
export const GATE_STATES = ['pending', 'claimed', 'resuming', 'settled', 'timeout', 'superseded', 'error'] as const;
export type GateState = (typeof GATE_STATES)[number];
export const DECISIONS = ['once', 'always', 'deny'] as const;
export type Decision = (typeof DECISIONS)[number];

/** Who did something, stored as it was at the time (display names change). */
export interface StoredActor {
  platform: string;
  id: string;
  displayName?: string;
  /** The operator name from access.operators, when the actor is one. */
  operator?: string;
}

/**
 * The approval policy a gate was opened under (approvals.policies), as it was then: a later change of the
 * file does not change a question already asked. `approvers` empty: every operator.
 */
export interface GatePolicy {
  name: string;
  approvals: number;
  approvers: string[];
  requesterMayApprove: boolean;
  denyReason: 'optional' | 'required';
  escalateAfterMs?: number;
  escalateTo: string[];
}

/** One counted approval of a gate under a policy of more than one: who (one operator, whatever platform), how, when. */
export interface GateApproval {
  operator: string;
  actor: StoredActor;
  decision: 'once' | 'always';
  at: string;
}

/**
 * One row per paused question: a tool call waiting for a human. The first valid decision anywhere
 * wins by compare-and-set on `state`; the row then says who decided, where and when, for every loser.
 */
export const approvalGates = pgTable(
  'approval_gates',
  {
    id: text('id').primaryKey(),
    interruptId: text('interrupt_id').notNull(),
    threadId: text('thread_id').notNull(),
    callId: text('call_id').notNull(),
    originChat: text('origin_chat'),
    requester: jsonb('requester').$type<StoredActor>(),
    tool: text('tool').notNull(),
    args: jsonb('args').notNull(),
    /** The arguments as rewritten before the card (an alias, a date anchored to memory): what approval runs. */
    rewritten: jsonb('rewritten').$type<Record<string, unknown>>(),
    argsHash: text('args_hash').notNull(),
    tier: text('tier'),
    reason: text('reason'),
    state: text('state', { enum: GATE_STATES }).notNull().default('pending'),
    decision: text('decision', { enum: DECISIONS }),
    denyReason: text('deny_reason'),
    decidedBy: jsonb('decided_by').$type<StoredActor>(),
    decidedPlatform: text('decided_platform'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    settledAt: timestamp('settled_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    error: text('error'),
    /** The policy the gate was opened under; null: none matched (one approval, the access rules). */
    policy: jsonb('policy').$type<GatePolicy>(),
    /** Approvals counted so far (a policy of more than one); the last one moves the gate to claimed. */
    approvals: jsonb('approvals').$type<GateApproval[]>().notNull().default([]),
    /** When the cards went to the policy's escalate_to (once). */
    escalatedAt: timestamp('escalated_at', { withTimezone: true }),
  },
  (t) => [
    check(
      'approval_gates_state_valid',
      sql`${t.state} in ('pending','claimed','resuming','settled','timeout','superseded','error')`,
    ),
    index('approval_gates_state_idx').on(t.state, t.expiresAt),
    index('approval_gates_thread_idx').on(t.threadId),
  ],
);

/** "Always" decisions: this tool (and, for shell, this argv pattern) in this chat until expiry. */
export const approvalGrants = pgTable(
  'approval_grants',
  {
    id: text('id').primaryKey(),
    chat: text('chat').notNull(),
    tool: text('tool').notNull(),
    /** For shell: the argv pattern (program + arguments) the grant covers; null = any arguments. */
    pattern: text('pattern'),
    grantedBy: jsonb('granted_by').$type<StoredActor>(),
    gateId: text('gate_id'),
    /** How many operators approved the "always": it covers a call only under a policy that asks no more. */
    approvals: integer('approvals').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [index('approval_grants_chat_idx').on(t.chat, t.tool)],
);
