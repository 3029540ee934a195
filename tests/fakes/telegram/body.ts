// Request parameters, read the ways the real Bot API accepts them: a JSON body (what grammy sends),
// application/x-www-form-urlencoded, multipart/form-data (grammy with files), or the query string.
// Form values are strings; like the real server, object-valued fields arrive JSON-serialised and are
// decoded, and numbers are coerced where a method reads them.
import type { Context } from 'hono';
import { parseMultipart } from './multipart.ts';
import { TelegramApiError, badRequest } from './wire.ts';

export type Params = Record<string, unknown>;

/** Reads every parameter of the request, merged over the query string. */
export async function readParams(c: Context): Promise<Params> {
  const params: Params = { ...c.req.query() };
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return decodeStrings(params);
  if (type.includes('application/json')) {
    const raw = await c.req.text();
    if (raw.trim() === '') return params;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw badRequest("can't parse JSON object");
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw badRequest("can't parse JSON object");
    return { ...params, ...(parsed as Params) };
  }
  if (type.includes('multipart/form-data')) {
    Object.assign(params, parseMultipart(Buffer.from(await c.req.arrayBuffer()), c.req.header('content-type') ?? ''));
  } else if (type.includes('application/x-www-form-urlencoded')) {
    const form = await c.req.parseBody();
    for (const [key, value] of Object.entries(form))
      params[key] = typeof value === 'string' ? value : Array.isArray(value) ? String(value[0]) : value;
  }
  return decodeStrings(params);
}

/** JSON-looking strings become objects/arrays, as the real server decodes reply_markup and friends. */
function decodeStrings(params: Params): Params {
  const out: Params = {};
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === 'string' && /^\s*[[{]/.test(value)) {
      try {
        out[key] = JSON.parse(value);
        continue;
      } catch {
        // Left as a string: the method's own validation reports it with the real error.
      }
    }
    out[key] = value;
  }
  return out;
}

/** An integer parameter (numbers may arrive as strings); `undefined` when absent. */
export function optInt(p: Params, name: string): number | undefined {
  const v = p[name];
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw badRequest(`invalid ${name} specified`);
  return n;
}

/** A required integer parameter; a missing one is reported as the real API does ("… is empty"). */
export function reqInt(p: Params, name: string): number {
  const n = optInt(p, name);
  if (n === undefined) throw badRequest(`${name} is empty`);
  return n;
}

/** A string parameter; numbers are accepted and stringified, as the real server is lenient there. */
export function optStr(p: Params, name: string): string | undefined {
  const v = p[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw badRequest(`invalid ${name} specified`);
}

/** `true`/"true" booleans, as both JSON and form bodies carry them. */
export const optBool = (p: Params, name: string): boolean => p[name] === true || p[name] === 'true';

/** The chat id: an integer (or its string form). `@username` targets exist in Telegram, not here. */
export function chatIdOf(p: Params): number {
  const v = p.chat_id;
  if (v === undefined || v === '') throw badRequest('chat_id is empty');
  if (typeof v === 'string' && v.startsWith('@')) throw badRequest('chat not found');
  try {
    return reqInt(p, 'chat_id');
  } catch (e) {
    if (e instanceof TelegramApiError) throw badRequest('chat not found');
    throw e;
  }
}
