import { z } from 'zod';
import { duration } from './duration.ts';

/**
 * `ui` in kazma.yaml: the operators' web page at `/ui` (src/adapters/http/ui; README "The web page").
 *
 * @example
 * ui:
 *   session_ttl: 8h
 */
export const uiSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** A sign-in lasts this long; rotating the operator's api_token ends it sooner. */
    session_ttl: duration('12h', { min: '1m' }),
  })
  .prefault({});
