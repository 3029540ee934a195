import type { Gate } from '../../../core/approvals/index.ts';
import type { Actor } from '../../../core/surface/index.ts';
import { Csrf, Notice } from './layout.tsx';
import { count, linkTo, PAGE_SIZE, pageNumber, Paging } from './paging.tsx';
import type { UiCore } from './port.ts';
import type { UiSession } from './sessions.ts';

export interface ViewContext {
  core: UiCore;
  session: UiSession;
  actor: Actor;
  query: Record<string, string | undefined>;
  notice?: { ok: boolean; message: string } | undefined;
}

/**
 * Every pending approval, oldest first, a page of {@link PAGE_SIZE} at a time (`?page=`), each as its chat
 * card shows it, with the buttons this operator may use. A page past the end (its gates decided meanwhile)
 * shows the last one.
 */
export async function approvalsView(ctx: ViewContext) {
  const states: Gate['state'][] = ['pending'];
  let page = pageNumber(ctx.query.page);
  let [total, gates] = await Promise.all([
    ctx.core.countGates(states),
    ctx.core.gates({ states, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
  ]);
  const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
  if (page > last) {
    page = last;
    gates = await ctx.core.gates({ states, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  }
  const first = (page - 1) * PAGE_SIZE;
  const to = (n: number) => linkTo('/ui/approvals', ctx.query, { page: n > 1 ? String(n) : undefined });
  const paging = total > 0 && (
    <Paging
      text={`Showing ${count(first + 1)}–${count(first + gates.length)} of ${count(total)} pending`}
      prev={page > 1 ? to(page - 1) : undefined}
      next={page < last ? to(page + 1) : undefined}
    />
  );
  return (
    <>
      <h1>Approvals</h1>
      <Notice notice={ctx.notice} />
      {gates.length === 0 ? (
        <p class="muted" id="none-pending">
          Nothing is waiting for a decision.
        </p>
      ) : (
        <>
          {paging}
          {gates.map((gate) => (
            <GateCard gate={gate} ctx={ctx} />
          ))}
          {total > PAGE_SIZE && paging}
        </>
      )}
    </>
  );
}

/** One gate: the card's title, every field in full (arguments included, never cut), then its buttons. */
export function GateCard(props: { gate: Gate; ctx: ViewContext }) {
  const { gate, ctx } = props;
  const card = ctx.core.card(gate);
  const refusal = gate.state === 'pending' && !ctx.session.readOnly ? ctx.core.refusal(gate, ctx.actor) : undefined;
  const action = `/ui/approvals/${encodeURIComponent(gate.gateId)}`;
  return (
    <article class="card" data-gate={gate.gateId} data-state={gate.state}>
      <h3 dir="auto">{card.title}</h3>
      <dl>
        {card.fields.map((field) => (
          <>
            <dt>{field.label}</dt>
            <dd>
              <pre dir="auto">{field.value}</pre>
            </dd>
          </>
        ))}
      </dl>
      {card.footer && (
        <p class="footer" dir="auto">
          {card.footer}
        </p>
      )}
      {gate.state === 'pending' && ctx.session.readOnly && <p class="muted">Signed in read-only: no decisions.</p>}
      {refusal && <p class="muted">You cannot decide this: {refusal}.</p>}
      {gate.state === 'pending' && !ctx.session.readOnly && !refusal && (
        <div class="buttons">
          <form method="post" action={action}>
            <Csrf session={ctx.session} />
            <button type="submit" name="decision" value="once" class="primary">
              Approve
            </button>
            <button type="submit" name="decision" value="always">
              Always
            </button>
          </form>
          <form method="post" action={action}>
            <Csrf session={ctx.session} />
            <ReasonField gate={gate} />
            <button type="submit" name="decision" value="deny" class="danger">
              Deny
            </button>
          </form>
        </div>
      )}
    </article>
  );
}

/** The Deny's reason: optional, or required (the browser asks, and the action refuses a Deny without one). */
function ReasonField(props: { gate: Gate }) {
  const policy = props.gate.policy;
  if (policy?.denyReason !== 'required')
    return <input type="text" name="reason" maxlength={2000} placeholder="Reason (optional)" aria-label="Reason" />;
  return (
    <input
      type="text"
      name="reason"
      maxlength={2000}
      required
      placeholder={`Reason (required by the policy ${policy.name})`}
      aria-label="Reason (required)"
    />
  );
}
