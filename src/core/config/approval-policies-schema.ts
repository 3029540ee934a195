import { z } from 'zod';
import { parseDuration } from './duration.ts';

/** An argument's pattern: a JavaScript regular expression, checked to compile when the file is read. */
const pattern = z.string().superRefine((source, ctx) => {
  try {
    new RegExp(source, 'u');
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error);
    ctx.addIssue({ code: 'custom', message: `the pattern does not compile: ${why}` });
  }
});

/** A duration with no default (absent: never), in milliseconds. */
const optionalDuration = z
  .union([z.string(), z.number()])
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return undefined;
    const ms = parseDuration(value);
    if (ms === undefined || ms <= 0) {
      ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration (use e.g. 10m, 1h)` });
      return z.NEVER;
    }
    return ms;
  });

/**
 * One entry of `approvals.policies`: which calls it matches and how their approval is decided
 * (docs/approvals.md#approval-policies). Every `match` key given must hold; an empty `match` matches every call.
 */
export const approvalPolicySchema = z.strictObject({
  /** A name for the audit and the cards; default `policies[<index>]`. */
  name: z.string().min(1).optional(),
  match: z
    .strictObject({
      /** Tool names (as the model calls them); absent: any tool. */
      tools: z.array(z.string().min(1)).min(1).optional(),
      /** `<argument>: <regex>`: the argument (text, or its JSON) must match; absent argument: no match. */
      args: z.record(z.string(), pattern).optional(),
      /** The tool's tier (`write`, `danger`, …), or a list of tiers. */
      tier: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    })
    .prefault({}),
  /** Distinct operators who must approve before the call runs; one Deny is enough to deny. */
  approvals: z.number().int().min(1).max(20).default(1),
  /** Operator names who may decide; default `approvals.approvers` (empty there: every operator). */
  approvers: z.array(z.string().min(1)).optional(),
  /** Without the quorum this long after the question, the cards also go to `escalate_to`. */
  escalate_after: optionalDuration,
  /** Operator names (their private chats) or chats (`slack:C0CTO`) asked once `escalate_after` passes. */
  escalate_to: z.array(z.string().min(1)).default([]),
  /** `required`: a Deny must say why (the reason is asked for, and the model gets it). */
  deny_reason: z.enum(['optional', 'required']).default('optional'),
  /** Whether whoever asked may count as an approver; default `approvals.requester_may_approve`. */
  requester_may_approve: z.boolean().optional(),
});

/** `approvals.policies`: ordered, the first that matches a call applies. */
export const approvalPoliciesSchema = z.array(approvalPolicySchema).default([]);

/** `approvals.require: { <tool>: <n> }`: shorthand for a policy `{ match: { tools: [<tool>] }, approvals: <n> }`. */
export const approvalRequireSchema = z.record(z.string().min(1), z.number().int().min(1).max(20)).default({});
