// The shape of an InboundEvent, checked where it enters the core: adapters build events from platform
// payloads an attacker can shape, and a recorded event is read back from the inbox after a restart.
import { z } from 'zod';
import { KazmaError } from '../errors.ts';
import type { InboundEvent } from './types.ts';

const actor = z.object({ platform: z.string().min(1), id: z.string().min(1), displayName: z.string().optional() });
const base = {
  eventId: z.string().min(1).max(512),
  platform: z.string().min(1),
  chat: z.string().regex(/^[a-z]+:[^:\s]+(:[^:\s]+)?$/),
  actor,
  fromSelf: z.boolean().optional(),
  direct: z.boolean().optional(),
};

const attachment = z.object({
  kind: z.enum(['image', 'document', 'audio']),
  ref: z.string().min(1).max(2048),
  name: z.string().max(512).optional(),
  mime: z.string().max(256).optional(),
  size: z.number().int().nonnegative().optional(),
});

const inboundEventSchema = z.discriminatedUnion('kind', [
  z.object({
    ...base,
    kind: z.literal('message'),
    text: z.string(),
    attachments: z.array(attachment).max(10).optional(),
  }),
  z.object({
    ...base,
    kind: z.literal('command'),
    name: z.string().min(1),
    args: z.array(z.string()),
    answerPrivately: z.boolean().optional(),
  }),
  z.object({
    ...base,
    kind: z.literal('action'),
    actionId: z.string().min(1).max(256),
    message: z.object({ chat: z.string(), id: z.string() }).optional(),
    reason: z.string().max(4000).optional(),
  }),
]);

/** An inbound event that is not the shape the core takes (a bug in an adapter, or a forged payload). */
export class InvalidInboundEventError extends KazmaError {
  constructor(readonly issues: string) {
    super('inbound_event_invalid', `an inbound event was malformed and was not taken in: ${issues}`);
  }
}

/** U+0000, a high surrogate with no low one after it, a low surrogate with no high one before it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what PostgreSQL cannot store.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Every string of `value` as PostgreSQL can store it: the inbox keeps the event as jsonb, which refuses
 * U+0000 and unpaired surrogates (error 22P05 on every try, which looks like the database being down: the
 * webhook would answer 503 for ever and long polling stop behind it). Each becomes U+FFFD, as a decoder
 * shows bytes it cannot read; everything else, Arabic and emoji included, is left as it is.
 */
function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(UNSTORABLE, '\ufffd');
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, storable(inner)]));
  return value;
}

/** The event, checked and storable; throws {@link InvalidInboundEventError} naming what is wrong. */
export function parseInboundEvent(value: unknown): InboundEvent {
  const parsed = inboundEventSchema.safeParse(storable(value));
  if (!parsed.success) {
    throw new InvalidInboundEventError(
      parsed.error.issues.map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`).join('; '),
    );
  }
  return parsed.data as InboundEvent;
}
