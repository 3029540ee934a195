// Discord's message limits, with its real error bodies, so an adapter that passes here passes on Discord.
import type { Json } from './call-log.ts';
import { apiError, fieldError, formError } from './router.ts';

/** Discord's API is Python: lengths are Unicode code points (not UTF-16 units, not bytes). */
export const codePoints = (s: string): number => [...s].length;

const maxLength = (max: number): Json => fieldError('BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);

/**
 * Null when the message body is acceptable. `create` also rejects an empty message, which an edit may
 * legitimately produce (e.g. removing the buttons only).
 */
export function validateMessage(body: Json, create: boolean): Response | null {
  if (body === null || typeof body !== 'object')
    return formError({
      _errors: [{ code: 'MODEL_TYPE_CONVERT', message: 'Only dictionaries may be used in a ModelType' }],
    });
  if (typeof body.content === 'string' && codePoints(body.content) > 2000)
    return formError({ content: maxLength(2000) });
  const rows: Json[] = Array.isArray(body.components) ? body.components : [];
  if (rows.length > 5) return formError({ components: maxLength(5) });
  for (const [r, row] of rows.entries()) {
    const items: Json[] = Array.isArray(row?.components) ? row.components : [];
    if (items.length > 5) return formError({ components: { [r]: { components: maxLength(5) } } });
    for (const [i, item] of items.entries()) {
      const at = (field: string, err: Json): Response =>
        formError({ components: { [r]: { components: { [i]: { [field]: err } } } } });
      if (typeof item.custom_id === 'string' && codePoints(item.custom_id) > 100)
        return at('custom_id', maxLength(100));
      if (typeof item.label === 'string' && codePoints(item.label) > 80) return at('label', maxLength(80));
    }
  }
  const empty =
    !body.content &&
    !body.embeds?.length &&
    !body.components?.length &&
    !body._files?.length &&
    !body.sticker_ids?.length &&
    !body.poll;
  if (create && empty) return apiError(400, 50006, 'Cannot send an empty message');
  return null;
}

/** Walks action rows for a button with this custom_id (what a user could really click). */
export function findButton(components: Json[], customId: string): Json | undefined {
  for (const row of components) {
    for (const item of row?.components ?? []) if (item.type === 2 && item.custom_id === customId) return item;
  }
  return undefined;
}
