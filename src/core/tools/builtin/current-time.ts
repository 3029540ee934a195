import { z } from 'zod';
import { systemClock, type Clock } from '../../clock.ts';
import { defineTool } from '../define.ts';

/** Options for {@link currentTimeTool}. */
export interface CurrentTimeOptions {
  /** Zone used when the model names none (kazma.yaml `time.zone`). Default 'UTC'. */
  zone?: string;
  /** Where now is read from (the core's Clock). Default {@link systemClock}. */
  clock?: Clock;
}

/** True when `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** `current_time` (safe, no effects): the date and time now, in an IANA zone. */
export function currentTimeTool(options: CurrentTimeOptions = {}) {
  const clock = options.clock ?? systemClock;
  const defaultZone = options.zone ?? 'UTC';
  return defineTool({
    name: 'current_time',
    description:
      `The current date and time. Optional "zone" is an IANA time zone such as "Europe/Berlin"; default ` +
      `${defaultZone}.`,
    input: z.object({
      zone: z
        .string()
        .refine(isTimeZone, { message: 'not an IANA time zone; use a name such as "Europe/Berlin" or "UTC"' })
        .optional()
        .describe('IANA time zone, e.g. "America/New_York"'),
    }),
    tier: 'safe',
    effects: false,
    outside: false,
    async run({ zone }) {
      const at = clock.now();
      const timeZone = zone ?? defaultZone;
      const local = new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'full', timeStyle: 'long' }).format(at);
      return `${local} (${timeZone}); ISO ${at.toISOString()}`;
    },
  });
}
