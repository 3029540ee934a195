// Who may answer a question card beyond "an operator": the kinds that decide like an approval card, and
// who asked for what they decide.
import type { AccessPolicy } from '../chat/index.ts';
import type { Actor } from '../surface/index.ts';
import type { Question, Questions } from './questions.ts';

/**
 * Question kinds decided like an approval card (approvals.approvers, requester_may_approve): a clarify
 * card's pick posts a message an approval would have let out; an MCP server's request (sampling,
 * elicitation) is allowed or denied. Named here, not imported, so the decisions module depends on neither.
 */
export const APPROVAL_LIKE_QUESTIONS: readonly string[] = ['clarify', 'mcp_request'];

/** The `mayDecide` rule of {@link Questions}: approval rules for the kinds above, any operator for the rest. */
export function whoMayAnswer(
  access: Pick<AccessPolicy, 'answerRefusal'>,
): (question: Question, actor: Actor) => string | undefined {
  return (question, actor) =>
    access.answerRefusal(actor, {
      likeApproval: APPROVAL_LIKE_QUESTIONS.includes(question.kind),
      requester: requesterOf(question),
    });
}

/**
 * Who asked for what a question decides, when its subject records it (`subject.requester`, as a clarify
 * card does); a question asked on nobody's behalf (an MCP server's request) gives undefined.
 */
export function requesterOf(question: Pick<Question, 'subject'>): Actor | undefined {
  const requester = (question.subject as { requester?: unknown } | null)?.requester as Partial<Actor> | undefined;
  return typeof requester?.platform === 'string' && typeof requester.id === 'string'
    ? { platform: requester.platform, id: requester.id }
    : undefined;
}
