import { z } from 'zod';
import { egressRequest, type EgressRequestOptions } from './client.ts';
import { WebFetchError } from './errors.ts';

/** `web.search` as the schema reads it. */
export interface SearchConfig {
  provider: '' | 'searxng' | 'brave' | 'tavily';
  url: string;
  api_key: string;
  max_results: number;
}

/** One search hit. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** Where each provider answers when `web.search.url` is empty (SearXNG has no public default: it is self-hosted). */
export const SEARCH_DEFAULT_URLS = {
  brave: 'https://api.search.brave.com/res/v1/web/search',
  tavily: 'https://api.tavily.com/search',
} as const;

const hits = z.array(
  z.looseObject({
    title: z.string().default(''),
    url: z.string().default(''),
    content: z.string().optional(),
    description: z.string().optional(),
  }),
);
const searxngAnswer = z.looseObject({ results: hits.default([]) });
const braveAnswer = z.looseObject({ web: z.looseObject({ results: hits.default([]) }).default({ results: [] }) });

/**
 * Runs one query at the configured provider, through the egress guard like every other web request
 * (a self-hosted SearXNG on the local network is opened with `web.allow_private`). The answer is read
 * with zod: a provider that changed its format fails with a clear error, not an undefined.
 */
export async function searchWeb(
  query: string,
  config: SearchConfig,
  request: Omit<EgressRequestOptions, 'method' | 'headers' | 'body' | 'accept'>,
): Promise<SearchHit[]> {
  const json = { accept: ['application/json'] } as const;
  let raw: z.infer<typeof hits>;
  if (config.provider === 'searxng') {
    const url = new URL('search', config.url.endsWith('/') ? config.url : `${config.url}/`);
    url.search = new URLSearchParams({ q: query, format: 'json' }).toString();
    raw = searxngAnswer.parse(parse(await egressRequest(url.href, { ...request, ...json }))).results;
  } else if (config.provider === 'brave') {
    const url = new URL(config.url || SEARCH_DEFAULT_URLS.brave);
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(config.max_results));
    raw = braveAnswer.parse(
      parse(
        await egressRequest(url.href, {
          ...request,
          ...json,
          headers: { 'x-subscription-token': config.api_key, accept: 'application/json' },
        }),
      ),
    ).web.results;
  } else if (config.provider === 'tavily') {
    const body = JSON.stringify({ query, max_results: config.max_results });
    const headers = { authorization: `Bearer ${config.api_key}`, 'content-type': 'application/json' };
    raw = searxngAnswer.parse(
      parse(
        await egressRequest(config.url || SEARCH_DEFAULT_URLS.tavily, {
          ...request,
          ...json,
          method: 'POST',
          headers,
          body,
        }),
      ),
    ).results;
  } else {
    throw new WebFetchError('no search provider is configured (web.search.provider)');
  }
  return raw
    .slice(0, config.max_results)
    .map((h) => ({ title: h.title, url: h.url, snippet: (h.content ?? h.description ?? '').trim() }));
}

function parse(res: { body: Buffer; url: string }): unknown {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch (error) {
    throw new WebFetchError(`the search provider at ${res.url} did not answer with JSON`, { cause: error });
  }
}
