import { platformLabel } from '../../../core/surface/index.ts';
import type { ViewContext } from './approvals-view.tsx';
import type { AuditView } from './port.ts';
import { linkTo, PAGE_SIZE, Paging } from './paging.tsx';

const OUTCOMES = ['won', 'lost', 'refused', 'expired', 'superseded', 'unknown_gate'];

const cursor = (raw: string | undefined) => {
  const n = Number(raw);
  return raw && Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

/**
 * One page of the attempts the filters pick, newest first: the newest (no cursor), those older than
 * `?before=` or those newer than `?after=` (an attempt's id, stable while new attempts arrive), and
 * whether there are attempts newer and older than the page. One more than a page is read to know.
 */
async function historyPage(ctx: ViewContext, filter: { outcome?: string; subjectId?: string }) {
  const before = cursor(ctx.query.before);
  const after = before === undefined ? cursor(ctx.query.after) : undefined;
  const read = (page: { before?: number; after?: number }) =>
    ctx.core.audit({ limit: PAGE_SIZE + 1, ...filter, ...page });
  let rows: AuditView[];
  if (after !== undefined) {
    rows = await read({ after });
    // Fewer than a page newer: that is the newest page, shown whole.
    if (rows.length > PAGE_SIZE) return { rows: rows.slice(1), newer: true, older: true };
  }
  rows = await read(before === undefined ? {} : { before });
  return { rows: rows.slice(0, PAGE_SIZE), newer: before !== undefined, older: rows.length > PAGE_SIZE };
}

/**
 * The audit trail of every decision attempt on approvals, newest first, {@link PAGE_SIZE} a page: who,
 * where, when, and the losers. The filters stay in the links to the pages before and after.
 */
export async function historyView(ctx: ViewContext) {
  const outcome = OUTCOMES.includes(ctx.query.outcome ?? '') ? ctx.query.outcome : undefined;
  const gate = ctx.query.gate?.trim() || undefined;
  const { rows, newer, older } = await historyPage(ctx, {
    ...(outcome && { outcome }),
    ...(gate && { subjectId: gate }),
  });
  const filters = { outcome, gate };
  const first = rows[0];
  const last = rows.at(-1);
  const paging = (
    <Paging
      text={rows.length === 0 ? 'No attempts.' : `Showing ${rows.length} attempts, newest first`}
      prev={newer && first ? linkTo('/ui/history', filters, { after: String(first.id) }) : undefined}
      next={older && last ? linkTo('/ui/history', filters, { before: String(last.id) }) : undefined}
    />
  );
  return (
    <>
      <h1>History</h1>
      <form method="get" action="/ui/history" class="buttons">
        <label>
          Outcome{' '}
          <select name="outcome">
            <option value="">any</option>
            {OUTCOMES.map((o) => (
              <option value={o} selected={o === outcome}>
                {o}
              </option>
            ))}
          </select>
        </label>
        <input type="text" name="gate" value={ctx.query.gate ?? ''} placeholder="Gate id" aria-label="Gate id" />
        <button type="submit">Filter</button>
      </form>
      {paging}
      <table>
        <thead>
          <tr>
            <th>When (UTC)</th>
            <th>Gate</th>
            <th>Who</th>
            <th>Where</th>
            <th>Decision</th>
            <th>Outcome</th>
            <th>Detail</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr data-gate={row.subjectId} data-outcome={row.outcome}>
              <td>{row.at.toISOString().replace('T', ' ').slice(0, 19)}</td>
              <td>{row.subjectId}</td>
              <td dir="auto">{row.who ?? ''}</td>
              <td>{row.platform ? platformLabel(row.platform) : ''}</td>
              <td>{row.decision ?? ''}</td>
              <td>{row.outcome}</td>
              <td dir="auto">{row.detail ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > 0 && paging}
    </>
  );
}
