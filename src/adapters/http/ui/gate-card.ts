// One pending approval as the page shows it, written with hono's `html` template instead of JSX: a page
// shows up to 50 of these, and building and serialising a JSX tree per card (ten elements per field, two
// forms) was most of the page's own render time. `html` escapes every value put into it (text and
// attributes alike, `&<>'"`), as JSX does; only what another `html` call made is put in as it is.
import type { HtmlEscapedString } from 'hono/utils/html';
import { html } from 'hono/html';
import type { Gate } from '../../../core/approvals/index.ts';
import type { ViewContext } from './approvals-view.tsx';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** One gate: the card's title, every field in full (arguments included, never cut), then its buttons. */
export function gateCard(gate: Gate, ctx: ViewContext): Html {
  const card = ctx.core.card(gate);
  const { session } = ctx;
  const pending = gate.state === 'pending';
  const refusal = pending && !session.readOnly ? ctx.core.refusal(gate, ctx.actor) : undefined;
  const fields = card.fields.map((field) => html`<dt>${field.label}</dt><dd><pre dir="auto">${field.value}</pre></dd>`);
  const head = html`<article class="card" data-gate="${gate.gateId}" data-state="${gate.state}">`;
  const title = html`<h3 dir="auto">${card.title}</h3>`;
  const footer = card.footer ? html`<p class="footer" dir="auto">${card.footer}</p>` : '';
  // Read-only sessions get no refusal (none is asked): the two notes never show together.
  const note =
    pending && session.readOnly
      ? READ_ONLY
      : refusal
        ? html`<p class="muted">You cannot decide this: ${refusal}.</p>`
        : '';
  const actions = pending && !session.readOnly && !refusal ? buttons(gate, session.csrf) : '';
  return html`${head}${title}<dl>${fields}</dl>${footer}${note}${actions}</article>`;
}

/** Approve / Always, and Deny with its reason (required when the gate's policy says so). */
function buttons(gate: Gate, csrf: string): Html {
  const action = `/ui/approvals/${encodeURIComponent(gate.gateId)}`;
  const token = html`<input type="hidden" name="_csrf" value="${csrf}"/>`;
  const form = html`<form method="post" action="${action}">${token}`;
  const policy = gate.policy;
  const required = policy?.denyReason === 'required';
  const placeholder = required ? `Reason (required by the policy ${policy.name})` : 'Reason (optional)';
  const reason = required
    ? html`<input type="text" name="reason" maxlength="2000" required="" placeholder="${placeholder}" ${REQUIRED}/>`
    : html`<input type="text" name="reason" maxlength="2000" placeholder="${placeholder}" ${OPTIONAL}/>`;
  const approve = html`${form}${ONCE}${ALWAYS}</form>`;
  return html`<div class="buttons">${approve}${form}${reason}${DENY}</form></div>`;
}

const READ_ONLY = html`<p class="muted">Signed in read-only: no decisions.</p>`;
const REQUIRED = html`aria-label="Reason (required)"`;
const OPTIONAL = html`aria-label="Reason"`;
const ONCE = html`<button type="submit" name="decision" value="once" class="primary">Approve</button>`;
const ALWAYS = html`<button type="submit" name="decision" value="always">Always</button>`;
const DENY = html`<button type="submit" name="decision" value="deny" class="danger">Deny</button>`;
