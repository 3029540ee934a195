import { platformLabel } from '../../../core/surface/index.ts';
import type { ViewContext } from './approvals-view.tsx';

const OUTCOMES = ['won', 'lost', 'refused', 'expired', 'superseded', 'unknown_gate'];

/** The audit trail of every decision attempt on approvals, newest first: who, where, when, and the losers. */
export async function historyView(ctx: ViewContext) {
  const outcome = OUTCOMES.includes(ctx.query.outcome ?? '') ? ctx.query.outcome : undefined;
  const rows = await ctx.core.audit({
    limit: 200,
    ...(outcome && { outcome }),
    ...(ctx.query.gate && { subjectId: ctx.query.gate }),
  });
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
    </>
  );
}
