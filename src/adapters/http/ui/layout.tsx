import type { Child } from 'hono/jsx';
import { ASSETS } from './assets.ts';
import type { UiSession } from './sessions.ts';

/** The pages in the header, in order: path under /ui and label. */
const PAGES = [
  ['approvals', 'Approvals'],
  ['history', 'History'],
  ['tasks', 'Tasks'],
  ['incidents', 'Incidents'],
  ['tools', 'Tools'],
  ['settings', 'Settings'],
] as const;

export interface LayoutProps {
  title: string;
  /** Absent on the sign-in page: no header, no live updates. */
  session?: UiSession;
  /** The page's own path (and query): where the live script fetches the main part again. */
  src?: string;
  children?: Child;
}

/** The whole document around one page's main part. */
export function Layout(props: LayoutProps) {
  const { session } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Kazma`}</title>
        <link rel="stylesheet" href={ASSETS.style.path} />
        {session && <script src={ASSETS.live.path} defer />}
      </head>
      <body>
        {session && (
          <header>
            <strong>Kazma</strong>
            <nav>
              {PAGES.map(([path, label]) => (
                <>
                  <a href={`/ui/${path}`} aria-current={props.src?.startsWith(`/ui/${path}`) ? 'page' : undefined}>
                    {label}
                  </a>{' '}
                </>
              ))}
            </nav>
            <span class="who">
              {session.operator ?? 'read-only'}
              {session.readOnly && session.operator ? ' (read-only)' : ''}{' '}
              <form method="post" action="/ui/sign-out">
                <Csrf session={session} />
                <button type="submit">Sign out</button>
              </form>
            </span>
          </header>
        )}
        <main id="main" data-src={props.src}>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** The CSRF token every form of a session carries; a POST without it changes nothing. */
export function Csrf(props: { session: UiSession }) {
  return <input type="hidden" name="_csrf" value={props.session.csrf} />;
}

/** What the last action did, said once at the top of the page. */
export function Notice(props: { notice?: { ok: boolean; message: string } | undefined }) {
  if (!props.notice) return null;
  return (
    <p class={props.notice.ok ? 'notice ok' : 'notice'} role="status" dir="auto">
      {props.notice.message}
    </p>
  );
}
