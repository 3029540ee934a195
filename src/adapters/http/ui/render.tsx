import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { Actor } from '../../../core/surface/index.ts';
import type { UiEnv } from './app.tsx';
import { approvalsView, type ViewContext } from './approvals-view.tsx';
import { toolsView } from './config-views.tsx';
import { historyView } from './history-view.tsx';
import { Layout } from './layout.tsx';
import { settingsView } from './settings-view.tsx';
import type { UiCore } from './port.ts';
import type { UiSession } from './sessions.ts';
import { incidentsView, tasksView } from './work-views.tsx';

/** One page: its title and its main part. */
export interface PageDef {
  path: string;
  title: string;
  view: (ctx: ViewContext) => Child | Promise<Child>;
}

/** The signed-in pages, by their path under /ui. */
export const PAGES = {
  approvals: { path: '/ui/approvals', title: 'Approvals', view: approvalsView },
  history: { path: '/ui/history', title: 'History', view: historyView },
  tasks: { path: '/ui/tasks', title: 'Tasks', view: tasksView },
  incidents: { path: '/ui/incidents', title: 'Incidents', view: incidentsView },
  tools: { path: '/ui/tools', title: 'Tools', view: toolsView },
  settings: { path: '/ui/settings', title: 'Settings', view: settingsView },
} satisfies Record<string, PageDef>;

/** Who a session acts as: an operator, known by name on the platform `web` (its cards say "on the web page"). */
export function actorOf(session: UiSession): Actor {
  const name = session.operator ?? 'read-only';
  return { platform: 'web', id: name, displayName: name };
}

export const render = {
  /** A whole document (`<!doctype html>` and the layout). */
  async document(title: string, body: Child, options: { session?: UiSession; src?: string } = {}): Promise<string> {
    const node = (
      <Layout title={title} {...options}>
        {body}
      </Layout>
    );
    return `<!doctype html>${await node.toString()}`;
  },

  /**
   * A page for a signed-in session; only its main part when the live script asks (`x-kazma-part: main`).
   * `notice`: what the action that led here did; `status`: its HTTP status.
   */
  async page(
    c: Context<UiEnv>,
    core: UiCore,
    page: PageDef,
    notice?: { ok: boolean; message: string },
    status: 200 | 403 | 404 | 409 = 200,
  ): Promise<Response> {
    const session = c.get('session');
    const query = c.req.method === 'GET' ? c.req.query() : {};
    const body = await page.view({ core, session, actor: actorOf(session), query, notice });
    // biome-ignore lint/complexity/noUselessFragments: the fragment makes any Child (a list, a string) one node
    if (c.req.header('x-kazma-part') === 'main') return c.html(await (<>{body}</>).toString(), status);
    const search = new URLSearchParams(query as Record<string, string>).toString();
    const src = search ? `${page.path}?${search}` : page.path;
    return c.html(await render.document(page.title, body, { session, src }), status);
  },
};
