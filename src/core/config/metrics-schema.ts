import { z } from 'zod';

/**
 * `metrics` in kazma.yaml: `GET /metrics` on `http.port`, the Prometheus text format (docs/operations.md
 * "Metrics"). It asks for an API token unless `public`: the figures name the tools and providers in use.
 *
 * @example
 * metrics:
 *   public: true   # a scraper on a private network, with no token to give it
 */
export const metricsSchema = z
  .strictObject({
    /** Serve `/metrics` at all; off, the path answers 404. */
    enabled: z.boolean().default(true),
    /** Serve it without `Authorization: Bearer <api token>`. */
    public: z.boolean().default(false),
  })
  .prefault({});
