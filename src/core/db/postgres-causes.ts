// Why a PostgreSQL server refused a first connection, said as its cause and its fix. drizzle wraps the
// driver's error ("Failed query: select 1"), and postgres.js reports the server's refusal by SQLSTATE or
// the socket's by errno: the sentence a person needs is under those wrappers.
import { MASK } from '../secrets/index.ts';

/** What a refusal was, and the fix, keyed by SQLSTATE or errno; `{url}` parts filled from the URL. */
const CAUSES: Record<string, (target: Target) => string> = {
  '28P01': (t) => `the password for user "${t.user}" was refused: fix it in database.url`,
  '28000': (t) => `user "${t.user}" may not connect (no such role, or pg_hba.conf refuses it): fix database.url`,
  '3D000': (t) =>
    `database "${t.database}" does not exist: create it (createdb ${t.database}) or name another in database.url`,
  '53300': () => 'it has no free connection slots (too many clients): raise max_connections or wait',
  '57P03': () => 'it is starting up or shutting down: wait, then start Kazma again',
  ECONNREFUSED: (t) => `nothing listens at ${t.where}: start PostgreSQL, or fix the host and port in database.url`,
  ENOTFOUND: (t) => `host "${t.host}" is not known: fix the host in database.url`,
  EAI_AGAIN: (t) => `host "${t.host}" could not be looked up (DNS): check the network or the host in database.url`,
  ETIMEDOUT: (t) => `${t.where} did not answer in time: check the network, a firewall, or the host in database.url`,
  CONNECT_TIMEOUT: (t) =>
    `${t.where} did not answer within 10 s: check the network, a firewall, or the host in database.url`,
  EHOSTUNREACH: (t) => `${t.where} cannot be reached from here: check the network or the host in database.url`,
  ENOENT: (t) => `no PostgreSQL socket at ${t.host}: start PostgreSQL, or fix the host in database.url`,
};

interface Target {
  user: string;
  database: string;
  host: string;
  where: string;
}

/**
 * The cause of a failed first statement against `url` and its fix, or undefined when the error is none
 * of the known refusals (the caller then says what the driver said).
 */
export function postgresCause(error: unknown, url: string): string | undefined {
  const target = targetOf(url);
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CAUSES[code]) return CAUSES[code](target);
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function targetOf(url: string): Target {
  try {
    const parsed = new URL(url);
    const host = parsed.searchParams.get('host') ?? (parsed.hostname || 'localhost');
    const user = decodeURIComponent(parsed.username) || 'the current user';
    const database = decodeURIComponent(parsed.pathname.slice(1)) || user;
    return { user, database, host, where: `${host}:${parsed.port || 5432}` };
  } catch {
    return { user: '?', database: '?', host: '?', where: 'the configured server' };
  }
}

/** A URL safe to print: the password replaced by the mask (set as a placeholder: a URL would escape `•••`). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return parsed.toString();
    parsed.password = 'KAZMA-MASK';
    return parsed.toString().replace('KAZMA-MASK', MASK);
  } catch {
    return '(unparseable URL)';
  }
}

/** The driver's own words under drizzle's "Failed query: …" wrapper. */
export function innermostMessage(error: unknown): string {
  let e = error as { cause?: unknown; message?: string } | undefined;
  while (e?.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  return e?.message ?? String(error);
}
