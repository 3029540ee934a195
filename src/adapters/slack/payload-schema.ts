// The fields of Slack payloads Kazma reads, checked before they are used: a signed request can still
// carry a field of the wrong type (a bug at Slack's end, or a leaked signing secret), and that must be a
// clear 400, not a crash in a listener. Unknown fields pass through.
import { z } from 'zod';
import { InvalidInboundEventError } from '../../core/surface/index.ts';
import type { SlackActionBody, SlackCommandBody, SlackMessageEvent } from './events.ts';
import type { SlackViewSubmission } from './reasons.ts';

const messageEvent = z.looseObject({
  type: z.string(),
  subtype: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  ts: z.string(),
  thread_ts: z.string().optional(),
  channel: z.string().min(1),
  channel_type: z.string().optional(),
  files: z
    .array(
      z.looseObject({
        id: z.string(),
        name: z.string().max(512).optional(),
        mimetype: z.string().max(256).optional(),
        size: z.number().int().nonnegative().optional(),
        url_private: z
          .url({ protocol: /^https?$/ })
          .max(2048)
          .optional(),
      }),
    )
    .max(10)
    .optional(),
});

const actionBody = z.looseObject({
  type: z.string(),
  trigger_id: z.string().optional(),
  user: z.looseObject({ id: z.string().min(1) }),
  channel: z.looseObject({ id: z.string() }).optional(),
  container: z.looseObject({ channel_id: z.string().optional(), message_ts: z.string().optional() }).optional(),
  message: z.looseObject({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
  actions: z.array(z.looseObject({ action_id: z.string(), action_ts: z.string().optional() })).optional(),
});

const viewSubmission = z.looseObject({
  type: z.literal('view_submission'),
  trigger_id: z.string().optional(),
  user: z.looseObject({ id: z.string().min(1) }),
  view: z.looseObject({
    id: z.string().min(1),
    callback_id: z.string().optional(),
    private_metadata: z.string().max(3000).optional(),
    state: z
      .looseObject({
        values: z.record(z.string(), z.record(z.string(), z.looseObject({ value: z.string().nullish() }))).optional(),
      })
      .optional(),
  }),
});

const commandBody = z.looseObject({
  command: z.string(),
  text: z.string().optional(),
  user_id: z.string().min(1),
  channel_id: z.string().min(1),
  trigger_id: z.string().optional(),
});

// What Bolt itself reads of an Events API envelope before Kazma's listeners run; a wrong type here
// would throw inside Bolt (a 500 Slack retries), so it is refused at the receiver with a 400.
const envelope = z.looseObject({
  type: z.literal('event_callback'),
  event_id: z.string().min(1),
  event: z.looseObject({
    type: z.string(),
    channel: z.string().optional(),
    user: z.string().optional(),
    text: z.string().optional(),
    ts: z.string().optional(),
    thread_ts: z.string().optional(),
    subtype: z.string().optional(),
  }),
});

function parse<T>(schema: z.ZodType, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data as T;
  throw new InvalidInboundEventError(
    `a Slack ${what}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`,
  );
}

export const parseMessageEvent = (value: unknown): SlackMessageEvent => parse(messageEvent, value, 'message event');
export const parseActionBody = (value: unknown): SlackActionBody => parse(actionBody, value, 'interaction payload');
export const parseViewSubmission = (value: unknown): SlackViewSubmission =>
  parse(viewSubmission, value, 'view submission');
export const parseCommandBody = (value: unknown): SlackCommandBody => parse(commandBody, value, 'slash command');

/** Checks an Events API envelope; throws InvalidInboundEventError naming the field. */
export const checkEnvelope = (value: unknown): void => void parse(envelope, value, 'event envelope');

/**
 * Checks what Bolt reads of any request before Kazma's listeners run: an event envelope, a button's
 * payload (Bolt reads `user.id` for every interaction), a modal's submission, a slash command. A signed
 * request without them would throw inside Bolt (a 500, which Slack retries); it is refused with a 400
 * naming the field.
 */
export function checkRequest(body: { type?: unknown; command?: unknown }): void {
  if (body.type === 'event_callback') checkEnvelope(body);
  else if (body.type === 'block_actions') parseActionBody(body);
  else if (body.type === 'view_submission') parseViewSubmission(body);
  else if (body.command !== undefined) parseCommandBody(body);
}
