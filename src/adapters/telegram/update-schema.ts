// The parts of a Telegram update Kazma reads, checked before anything acts on them: the webhook is
// reachable by anyone who learns its URL and secret, and a field of the wrong type (a `text` that is a
// number) must be a clear refusal, not a crash deep in the command parser. Unknown fields pass through.
import type { Update } from 'grammy/types';
import { z } from 'zod';

const user = z.looseObject({
  id: z.number().int(),
  is_bot: z.boolean().optional(),
  first_name: z.string().optional(),
  username: z.string().optional(),
});
const chat = z.looseObject({ id: z.number().int(), type: z.string() });
const file = { file_id: z.string().min(1).max(2048), file_size: z.number().int().nonnegative().optional() };
const message = z.looseObject({
  message_id: z.number().int(),
  chat,
  from: user.optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  photo: z.array(z.looseObject(file)).optional(),
  document: z
    .looseObject({ ...file, file_name: z.string().max(512).optional(), mime_type: z.string().max(256).optional() })
    .optional(),
  voice: z.looseObject({ ...file, mime_type: z.string().max(256).optional() }).optional(),
  audio: z
    .looseObject({ ...file, file_name: z.string().max(512).optional(), mime_type: z.string().max(256).optional() })
    .optional(),
  video_note: z.looseObject(file).optional(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  // `user` is only on a text_mention; checked here so a malformed one is refused, not a crash later.
  entities: z
    .array(z.looseObject({ type: z.string(), offset: z.number(), length: z.number(), user: user.optional() }))
    .optional(),
  reply_to_message: z.looseObject({ from: user.optional(), text: z.string().optional() }).optional(),
});
const updateSchema = z.looseObject({
  update_id: z.number().int().nonnegative(),
  message: message.optional(),
  callback_query: z
    .looseObject({ id: z.string(), from: user, data: z.string().optional(), message: message.optional() })
    .optional(),
});

/** The update, or a reason naming the field that is wrong. */
export function parseUpdate(value: unknown): { ok: true; update: Update } | { ok: false; reason: string } {
  const parsed = updateSchema.safeParse(value);
  if (parsed.success) return { ok: true, update: parsed.data as unknown as Update };
  return {
    ok: false,
    reason: parsed.error.issues.map((i) => `${i.path.join('.') || '(update)'}: ${i.message}`).join('; '),
  };
}
