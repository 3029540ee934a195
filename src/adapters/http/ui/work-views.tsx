import type { ViewContext } from './approvals-view.tsx';
import { Csrf, Notice } from './layout.tsx';

const ENDED = ['done', 'failed', 'cancelled'];
/** A task's or a schedule's Cancel button: one form, with the session's CSRF token. */
function CancelForm(props: { action: string; ctx: ViewContext }) {
  return (
    <form method="post" action={props.action} class="buttons">
      <Csrf session={props.ctx.session} />
      <button type="submit" class="danger">
        Cancel
      </button>
    </form>
  );
}

const at = (date: Date) => date.toISOString().replace('T', ' ').slice(0, 16);

/** Background tasks (cancel one that has not ended) and scheduled jobs (cancel one still scheduled). */
export async function tasksView(ctx: ViewContext) {
  const [tasks, schedules] = await Promise.all([ctx.core.tasks(), ctx.core.schedules()]);
  const may = !ctx.session.readOnly;
  return (
    <>
      <h1>Tasks</h1>
      <Notice notice={ctx.notice} />
      {tasks.length === 0 && <p class="muted">No tasks.</p>}
      {tasks.map((task) => (
        <article class="card" data-task={task.id} data-state={task.state}>
          <h3 dir="auto">{task.goal}</h3>
          <p>
            <span class="state">{task.state.replace('_', ' ')}</span> · {task.id} · since {at(task.createdAt)} UTC
          </p>
          {task.error && <pre dir="auto">{task.error}</pre>}
          {may && !ENDED.includes(task.state) && (
            <CancelForm action={`/ui/tasks/${encodeURIComponent(task.id)}/cancel`} ctx={ctx} />
          )}
        </article>
      ))}
      <section id="schedules">
        <h2>Schedules</h2>
        {schedules.length === 0 && <p class="muted">Nothing scheduled.</p>}
        {schedules.map((row) => (
          <article class="card" data-schedule={row.id} data-state={row.state}>
            <h3 dir="auto">{row.text}</h3>
            <p>
              {row.kind} · {row.when} · {row.state}
            </p>
            {may && row.state === 'scheduled' && (
              <CancelForm action={`/ui/schedules/${encodeURIComponent(row.id)}/cancel`} ctx={ctx} />
            )}
          </article>
        ))}
      </section>
    </>
  );
}

/** Open incidents, each with its card's buttons (Retry / Cancel / Dismiss): the same question, decided once. */
export async function incidentsView(ctx: ViewContext) {
  const incidents = await ctx.core.incidents();
  return (
    <>
      <h1>Incidents</h1>
      <Notice notice={ctx.notice} />
      {incidents.length === 0 && <p class="muted">No open incidents.</p>}
      {incidents.map((incident) => (
        <article class="card" data-incident={incident.id}>
          <h3 dir="auto">
            {incident.kind} {incident.workId}: {incident.problem}
          </h3>
          <pre dir="auto">{incident.detail}</pre>
          <p class="muted">opened {at(incident.openedAt)} UTC</p>
          {!ctx.session.readOnly && incident.questionId && (
            <form method="post" action={`/ui/incidents/${encodeURIComponent(incident.questionId)}`} class="buttons">
              <Csrf session={ctx.session} />
              {incident.options.map((option) => (
                <button type="submit" name="option" value={option.id}>
                  {option.label}
                </button>
              ))}
            </form>
          )}
        </article>
      ))}
    </>
  );
}
