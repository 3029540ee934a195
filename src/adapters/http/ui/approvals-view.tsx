import type { Gate } from '../../../core/approvals/index.ts';
import type { Actor } from '../../../core/surface/index.ts';
import { gateCard } from './gate-card.ts';
import { Notice } from './layout.tsx';
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
 * card shows it, with the buttons this operator may use ({@link gateCard}). A page past the end (its gates
 * decided meanwhile) shows the last one.
 */
export async function approvalsView(ctx: ViewContext) {
  const states: Gate['state'][] = ['pending'];
  let page = pageNumber(ctx.query.page);
  const read = (n: number) => ctx.core.gatePage({ states, limit: PAGE_SIZE, offset: (n - 1) * PAGE_SIZE });
  let { gates, total } = await read(page);
  const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
  if (page > last) {
    page = last;
    ({ gates, total } = await read(page));
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
          {gates.map((gate) => gateCard(gate, ctx))}
          {total > PAGE_SIZE && paging}
        </>
      )}
    </>
  );
}
