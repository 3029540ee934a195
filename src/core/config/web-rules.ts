import type { KazmaConfig } from './schema.ts';

/** `web.*` rules zod's shape cannot express; each names the key and the fix. */
export function webConfigIssues(config: KazmaConfig): string[] {
  const { search } = config.web;
  const issues: string[] = [];
  if (search.provider === 'searxng' && !search.url)
    issues.push(
      'web.search.url: SearXNG is self-hosted; give its base URL (e.g. http://searx.lan:8080), and add ' +
        'searx.lan:8080 to web.allow_private if it is on your network',
    );
  if ((search.provider === 'brave' || search.provider === 'tavily') && !search.api_key)
    issues.push(
      `web.search.api_key: ${search.provider} needs an API key; write it as \${ENV_NAME} or a vault:// pointer`,
    );
  if (search.url && !/^https?:\/\//.test(search.url)) issues.push('web.search.url: expected an http(s) URL');
  return issues;
}
