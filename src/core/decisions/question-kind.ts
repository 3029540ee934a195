// The question as a decision kind for first-decision-wins: how it loads, who may answer, the compare-and-set
// that settles it with its audit in one statement, and its card in every state.
import { eq, sql } from 'drizzle-orm';
import { decisionAudit, decisionQuestions } from '../db/index.ts';
import type { Card, ChatRef } from '../surface/index.ts';
import { compareAndSet } from './compare-and-set.ts';
import type { QuestionRow } from './effect-store.ts';
import type { DecisionKind } from './first-wins.ts';
import type { Question, QuestionsOptions } from './question-types.ts';
import { decidedBy, storedActor } from './wording.ts';

const PREFIX = 'q';

/** The button id of an answer: `q:<question id>:<option id>`. */
export function questionActionId(id: string, option: string): string {
  return `${PREFIX}:${id}:${option}`;
}

export function questionKind({ db, mayDecide, operatorName }: QuestionsOptions): DecisionKind<Question, string> {
  return {
    owner: 'question',
    async load(id) {
      const [row] = await db.select().from(decisionQuestions).where(eq(decisionQuestions.id, id));
      return row && fromRow(row);
    },
    isOpen: (q) => q.state === 'open',
    // Its kind and subject never change after it is asked, so a question read to route the tap will do.
    refusal(q, actor) {
      return mayDecide(q, actor);
    },
    async settle(request) {
      const actor = storedActor(request.actor, operatorName(request.actor));
      const { won, row } = await compareAndSet(db, {
        table: decisionQuestions,
        idColumn: decisionQuestions.id,
        stateColumn: decisionQuestions.state,
        id: request.id,
        from: 'open',
        to: 'decided',
        // `effect: 'owed'` in the deciding statement itself: no stop can come between the decision and the record of
        // what it owes.
        set: {
          decision: request.decision,
          decidedBy: actor,
          decidedPlatform: request.actor.platform,
          decidedAt: sql`now()`,
          updatedAt: sql`now()`,
          effect: 'owed',
        },
        // Only one of its answers decides it; any other leaves it open (the loser is told "not an answer").
        guard: sql`${decisionQuestions.options} @> ${JSON.stringify([{ id: request.decision }])}::jsonb`,
        audit: {
          kind: 'question',
          outcomes: { won: 'won', lost: 'lost', unknown: 'unknown' },
          actor,
          platform: request.actor.platform,
          decision: request.decision,
          ...(request.reason && { detail: request.reason }),
          ...(request.eventKey && { eventKey: request.eventKey }),
        },
      });
      return { won, question: row && fromRow(row) };
    },
    async audit(entry) {
      const actor = entry.actor && storedActor(entry.actor, operatorName(entry.actor));
      await db
        .insert(decisionAudit)
        .values({
          kind: 'question',
          subjectId: entry.id,
          outcome: entry.outcome,
          actor: actor ?? null,
          platform: entry.actor?.platform ?? null,
          decision: entry.decision ?? null,
          detail: entry.detail ?? null,
          eventKey: entry.eventKey ?? null,
        })
        // The same event run again is the same attempt: its row is already there.
        .onConflictDoNothing({ target: [decisionAudit.kind, decisionAudit.subjectId, decisionAudit.eventKey] });
    },
    lostMessage(q, request) {
      if (q.state === 'open') return `"${request.decision}" is not an answer to this question.`;
      const line = outcomeLine(q);
      return q.state === 'closed' ? `This question is closed: ${line}.` : `Already decided: ${line}.`;
    },
    card: questionCard,
  };
}

/** THE question card, in any state: the buttons while open, the outcome after. */
export function questionCard(q: Question): Card {
  if (q.state === 'open') {
    return {
      title: q.title,
      fields: q.fields,
      buttons: q.options.map((o) => ({ id: questionActionId(q.id, o.id), label: o.label, style: o.style })),
    };
  }
  return { title: q.title, fields: q.fields, buttons: [], footer: outcomeLine(q) };
}

function outcomeLine(q: Question): string {
  if (q.state === 'closed') return q.closedReason ?? 'closed';
  const label = q.options.find((o) => o.id === q.decision)?.label ?? q.decision ?? 'decided';
  return `${label} ${decidedBy(q.decidedBy, q.decidedPlatform, q.decidedAt)}`;
}

export function fromRow(row: QuestionRow): Question {
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    title: row.title,
    fields: row.fields,
    options: row.options,
    subject: row.subject,
    ...(row.chat && { chat: row.chat as ChatRef }),
    ...(row.decision && { decision: row.decision }),
    ...(row.decidedBy && { decidedBy: row.decidedBy.operator ?? row.decidedBy.displayName ?? row.decidedBy.id }),
    ...(row.decidedPlatform && { decidedPlatform: row.decidedPlatform }),
    ...(row.decidedAt && { decidedAt: row.decidedAt }),
    ...(row.closedReason && { closedReason: row.closedReason }),
  };
}
