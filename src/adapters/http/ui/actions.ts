// The page's state-changing forms. Each runs the core call a chat tap or command runs (port.ts says
// which) and answers with the page redrawn and a notice; the session and CSRF token were checked before
// (app.tsx), and a read-only session is refused here.
import { type Context, Hono } from 'hono';
import { DECISIONS, type Decision } from '../../../core/db/index.ts';
import type { UiEnv } from './app.tsx';
import type { ActionResult, UiCore } from './port.ts';
import { actorOf, PAGES, type PageDef, render } from './render.tsx';

const field = (form: Record<string, unknown>, name: string): string =>
  typeof form[name] === 'string' ? (form[name] as string) : '';

const param = (c: Context<UiEnv>, name: string): string => c.req.param(name) ?? '';

export function uiActions(core: UiCore): Hono<UiEnv> {
  const app = new Hono<UiEnv>();
  /** Runs `act` for a session that may change things, then redraws `page` with what it said. */
  const acting =
    (page: PageDef, act: (c: Context<UiEnv>, form: Record<string, unknown>) => Promise<ActionResult>) =>
    async (c: Context<UiEnv>) => {
      if (c.get('session').readOnly)
        return render.page(c, core, page, { ok: false, message: 'Signed in read-only: nothing was changed.' }, 403);
      const result = await act(c, await c.req.parseBody());
      return render.page(c, core, page, result, result.ok ? 200 : 409);
    };

  app.post(
    '/ui/approvals/:id',
    acting(PAGES.approvals, async (c, form) => {
      const decision = field(form, 'decision');
      if (!(DECISIONS as readonly string[]).includes(decision))
        return { ok: false, message: `Unknown decision "${decision}".` };
      const reason = field(form, 'reason').trim().slice(0, 2000);
      const outcome = await core.decide({
        gateId: param(c, 'id'),
        decision: decision as Decision,
        actor: actorOf(c.get('session')),
        ...(reason && { reason }),
      });
      // The core's question names the chat's ways to answer it; on the page the answer is the Reason field.
      if (!outcome.ok && outcome.reason === 'reason_required')
        return {
          ok: false,
          message:
            `A Deny of ${outcome.gate.call.tool} needs a reason (policy ${outcome.gate.policy?.name}): ` +
            'write it in the Reason field. Nothing was decided.',
        };
      if (!outcome.ok) return { ok: false, message: outcome.message };
      const verb = decision === 'deny' ? 'Denied' : decision === 'always' ? 'Approved always (this chat)' : 'Approved';
      return { ok: true, message: `${verb}: ${outcome.gate.call.tool} (gate ${outcome.gate.gateId}).` };
    }),
  );
  app.post(
    '/ui/tasks/:id/cancel',
    acting(PAGES.tasks, (c) => core.cancelTask(param(c, 'id'))),
  );
  app.post(
    '/ui/schedules/:id/cancel',
    acting(PAGES.tasks, (c) => core.cancelSchedule(param(c, 'id'))),
  );
  app.post(
    '/ui/incidents/:question',
    acting(PAGES.incidents, (c, form) =>
      core.answer({
        questionId: param(c, 'question'),
        option: field(form, 'option'),
        actor: actorOf(c.get('session')),
      }),
    ),
  );
  app.post(
    '/ui/tools/:name',
    acting(PAGES.tools, (c, form) =>
      core.setTool({ name: param(c, 'name'), on: field(form, 'on') === 'true', actor: actorOf(c.get('session')) }),
    ),
  );
  app.post(
    '/ui/mcp/:name/switch',
    acting(PAGES.tools, (c, form) =>
      core.setServer({ name: param(c, 'name'), on: field(form, 'on') === 'true', actor: actorOf(c.get('session')) }),
    ),
  );
  app.post(
    '/ui/mcp/:name/remove',
    acting(PAGES.tools, (c) => core.removeServer({ name: param(c, 'name'), actor: actorOf(c.get('session')) })),
  );
  app.post(
    '/ui/mcp',
    acting(PAGES.tools, (c, form) => {
      const fields = ['name', 'url', 'transport', 'bearer', 'header', 'trust', 'command'] as const;
      const sent = Object.fromEntries(fields.map((name) => [name, field(form, name)])) as Record<
        (typeof fields)[number],
        string
      >;
      return core.addServer({ form: sent, actor: actorOf(c.get('session')) });
    }),
  );
  return app;
}
