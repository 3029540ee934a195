import { z } from 'zod';
import { KazmaError } from '../errors.ts';

/** The environment variable naming a remote skill hub. */
export const HUB_URL_ENV = 'KAZMA_HUB_URL';

/** The hub did not answer, or answered something that is not a list of skills. */
export class HubError extends KazmaError {
  constructor(url: string, what: string) {
    super('skill_hub_failed', `the skill hub at ${url} ${what}; check ${HUB_URL_ENV}`);
  }
}

const listing = z.array(
  z.object({ name: z.string(), version: z.coerce.string().default(''), description: z.string().default('') }),
);

/**
 * Searches a remote hub: `GET <url>/skills?q=<query>` answering a JSON array of `{ name, version,
 * description }` (or `{ skills: [...] }`).
 */
export async function searchHub(
  url: string,
  query: string,
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<z.output<typeof listing>> {
  const target = new URL('skills', url.endsWith('/') ? url : `${url}/`);
  target.searchParams.set('q', query);
  let body: unknown;
  try {
    const response = await (options.fetch ?? fetch)(target, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    if (!response.ok) throw new HubError(url, `answered HTTP ${response.status}`);
    body = await response.json();
  } catch (error) {
    if (error instanceof HubError) throw error;
    throw new HubError(url, `could not be reached (${(error as Error).message})`);
  }
  const parsed = listing.safeParse(Array.isArray(body) ? body : (body as { skills?: unknown } | null)?.skills);
  if (!parsed.success) throw new HubError(url, 'answered something that is not a list of skills');
  return parsed.data;
}
