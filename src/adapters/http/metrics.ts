import { Hono } from 'hono';
import { ApiTokens, type ApiTokenOptions } from './api-tokens.ts';

/** What `/metrics` serves: the process's figures in the Prometheus text format. */
export interface MetricsSource {
  text(): Promise<string>;
  readonly contentType: string;
}

/** Options for {@link metricsRoute}: the API tokens that may read it, unless `public`. */
export interface MetricsRouteOptions extends ApiTokenOptions {
  meter: MetricsSource;
  /** `metrics.public`: no token asked. */
  public: boolean;
}

/**
 * `GET /metrics` for a Prometheus scraper. Any API token reads it — an operator's or the shared read-only
 * `http.api_token` — since the figures name the tools and model providers in use; `metrics.public: true`
 * drops the check for a scraper on a private network that holds no token.
 */
export function metricsRoute(options: MetricsRouteOptions): Hono {
  const app = new Hono();
  const tokens = new ApiTokens(options);
  app.get('/metrics', async (c) => {
    if (!options.public && !tokens.identify(c.req.header('authorization'))) {
      const hint = tokens.enabled
        ? 'send Authorization: Bearer <an access.operators[].api_token or http.api_token>'
        : 'set http.api_token (or an operator api_token) for the scraper, or metrics.public: true';
      return c.json({ error: 'unauthorized', hint }, 401);
    }
    return c.body(await options.meter.text(), 200, { 'content-type': options.meter.contentType });
  });
  return app;
}
