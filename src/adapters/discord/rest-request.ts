// The request function of Kazma's Discord REST clients (@discordjs/rest's `makeRequest`). discord.js
// brings undici 6; Kazma's model calls bring undici 7. Both read one global dispatcher (a Symbol.for key),
// installed by whichever loaded first — and a multipart upload body undici 6 builds is not a FormData to
// undici 7 (`TypeError: action is not a function`). So Discord's calls go out through undici 7's
// `request` with a dispatcher of their own, never the global one, and a FormData body (an upload) is
// encoded to bytes here, by the platform's own Response, before it is handed over.
import { STATUS_CODES } from 'node:http';
import type { ResponseLike, RESTOptions } from 'discord.js';
import { Agent, request } from 'undici';

/** Statuses whose response has no body (a Response refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** A request function with its own pool of connections: one per REST client. */
export function discordRequest(): RESTOptions['makeRequest'] {
  const dispatcher = new Agent();
  return async (url, init) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers as HeadersInit | undefined).forEach((value, name) => {
      headers[name] = value;
    });
    let body = init.body as unknown;
    if (body instanceof FormData || body instanceof URLSearchParams || body instanceof Blob) {
      const encoded = new Response(body);
      headers['content-type'] = encoded.headers.get('content-type') ?? 'application/octet-stream';
      body = new Uint8Array(await encoded.arrayBuffer());
    }
    const answer = await request(url, {
      method: (init.method ?? 'GET').toUpperCase() as 'GET',
      headers,
      body: body as string | Uint8Array | null | undefined,
      signal: (init.signal ?? undefined) as AbortSignal | undefined,
      dispatcher,
    });
    const status = answer.statusCode;
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
        responseHeaders.append(name, one);
    }
    const bytes = NO_BODY.has(status) ? null : new Uint8Array(await answer.body.arrayBuffer());
    if (bytes === null) answer.body.resume();
    // The types of two undici's streams differ; the object is the platform's own Response.
    return new Response(bytes, {
      status,
      statusText: STATUS_CODES[status] ?? '',
      headers: responseHeaders,
    }) as unknown as ResponseLike;
  };
}
