// REST: interaction callbacks, the interaction webhook (@original and follow-ups), command registration.
// Discord's rules enforced: one callback per interaction, within the deadline (3 s), token valid 15 min.
import type { Context } from 'hono';
import type { Json } from './call-log.ts';
import { snowflake, type FakeState, type InteractionRecord, type StoredMessage } from './model.ts';
import { apiError, formError, fieldError, json, noContent, param, type Router } from './router.ts';
import { validateMessage } from './validate.ts';
import { validateModal } from './modals.ts';

const TOKEN_LIFETIME_MS = 15 * 60_000;
const unknownInteraction = (): Response => apiError(404, 10062, 'Unknown interaction');
const unknownWebhook = (): Response => apiError(404, 10015, 'Unknown Webhook');
/** What response messages carry about their interaction (discord.js reads every field). */
const metadata = (rec: InteractionRecord): Json => ({
  id: rec.id,
  type: rec.type,
  user: rec.user,
  authorizing_integration_owners: rec.owners,
  ...(rec.originalId ? { original_response_message_id: rec.originalId } : {}),
  ...(rec.messageId ? { interacted_message_id: rec.messageId } : {}),
});

export function interactionRoutes(r: Router, state: FakeState, deadlineMs: () => number): void {
  r.on(
    'POST',
    '/interactions/:id/:token/callback',
    (c, body: Json) => {
      const rec = state.interactions.get(param(c, 'id'));
      if (!rec || rec.token !== param(c, 'token')) return unknownInteraction();
      if (rec.callbacks.length > 0) return apiError(400, 40060, 'Interaction has already been acknowledged.');
      if (Date.now() - rec.createdAt > deadlineMs()) return unknownInteraction();
      const type = Number(body?.type);
      const data: Json = body?.data ?? {};
      // A modal submitted from a component's modal is answered like that component (6/7 edit its message).
      const component = rec.type === 3 || (rec.type === 5 && rec.messageId !== undefined);
      if (type === 4 || type === 5) {
        if (type === 4) {
          const invalid = validateMessage(data, true);
          if (invalid) return invalid;
        }
        const flags = ((data.flags ?? 0) & 64) | (type === 5 ? 128 : 0); // 64 = EPHEMERAL, 128 = LOADING ("thinking…")
        const m = state.store(
          state.newMessage(rec.channelId, state.bot, type === 4 ? { ...data, flags } : { flags }, {
            type: component ? 0 : 20,
            webhook_id: state.appId,
            interaction_metadata: metadata(rec),
          }),
        );
        rec.originalId = m.id;
      } else if ((type === 6 || type === 7) && component) {
        const target = state.messages.get(rec.messageId ?? '');
        if (!target || target.deleted) return apiError(404, 10008, 'Unknown Message');
        if (type === 7) {
          const invalid = validateMessage(data, false);
          if (invalid) return invalid;
          state.edit(target, data);
        }
        rec.originalId = rec.messageId;
      } else if (type === 9 && rec.type !== 5) {
        const invalid = validateModal(data);
        if (invalid) return invalid;
        rec.modal = data;
      } else {
        const choices = rec.type === 5 ? (component ? '4, 5, 6, 7' : '4, 5') : component ? '4, 5, 6, 7, 9' : '4, 5, 9';
        return formError({ type: fieldError('BASE_TYPE_CHOICES', `Value must be one of ${choices}.`) });
      }
      rec.callbacks.push({ type, data, at: Date.now() });
      if (c.req.query('with_response') !== 'true') return noContent();
      const original = rec.originalId ? state.messages.get(rec.originalId) : undefined;
      return json(200, {
        interaction: {
          id: rec.id,
          type: rec.type,
          response_message_id: original?.id,
          response_message_loading: type === 5,
          response_message_ephemeral: ((original?.flags ?? 0) & 64) !== 0,
        },
        resource: { type, ...(original ? { message: state.toApi(original) } : {}) },
      });
    },
    { auth: false },
  );

  /** The interaction behind a webhook URL, or the error Discord gives for that token. */
  const lookup = (c: Context): InteractionRecord | Response => {
    const rec = [...state.interactions.values()].find((i) => i.token === param(c, 'token'));
    if (!rec || param(c, 'app') !== state.appId) return unknownWebhook();
    if (Date.now() - rec.createdAt > TOKEN_LIFETIME_MS) return apiError(401, 50027, 'Invalid Webhook Token');
    return rec;
  };
  const message = (rec: InteractionRecord, id: string): StoredMessage | Response => {
    const mid = id === '@original' ? rec.originalId : id;
    const m = mid ? state.messages.get(mid) : undefined;
    const ours = id === '@original' || rec.followUps.some((f) => f.id === mid);
    return m && ours && !m.deleted ? m : apiError(404, 10008, 'Unknown Message');
  };

  // discord.js sends `%40original`; hono decodes params but matches static segments raw, so one
  // `:mid` route serves both, logged as `…/messages/@original` or `…/messages/:mid`.
  const path = '/webhooks/:app/:token/messages/:mid';
  const isOriginal = (c: Context): boolean => param(c, 'mid') === '@original';
  const route =
    (method: string) =>
    (c: Context): string =>
      `${method} /webhooks/:app/:token/messages/${isOriginal(c) ? '@original' : ':mid'}`;
  const target = (c: Context): [InteractionRecord, StoredMessage] | Response => {
    const rec = lookup(c);
    if (rec instanceof Response) return rec;
    const m = message(rec, param(c, 'mid'));
    return m instanceof Response ? m : [rec, m];
  };
  r.on(
    'GET',
    path,
    (c) => {
      const t = target(c);
      return t instanceof Response ? t : json(200, state.toApi(t[1]));
    },
    { auth: false, route: route('GET') },
  );
  r.on(
    'PATCH',
    path,
    (c, body: Json) => {
      const t = target(c);
      if (t instanceof Response) return t;
      const invalid = validateMessage(body ?? {}, false);
      if (invalid) return invalid;
      state.edit(t[1], body ?? {});
      if (isOriginal(c)) t[0].originalEdits.push({ body, at: Date.now() });
      return json(200, state.toApi(t[1]));
    },
    { auth: false, route: route('PATCH') },
  );
  r.on(
    'DELETE',
    path,
    (c) => {
      const t = target(c);
      if (t instanceof Response) return t;
      t[1].deleted = true;
      return noContent();
    },
    { auth: false, route: route('DELETE') },
  );

  r.on(
    'POST',
    '/webhooks/:app/:token',
    (c, body: Json) => {
      const rec = lookup(c);
      if (rec instanceof Response) return rec;
      if (rec.callbacks.length === 0) return unknownWebhook(); // follow-ups only after the interaction was answered
      const invalid = validateMessage(body ?? {}, true);
      if (invalid) return invalid;
      const m = state.store(
        state.newMessage(
          rec.channelId,
          state.bot,
          { ...body, flags: (body.flags ?? 0) & 64 },
          {
            webhook_id: state.appId,
            interaction_metadata: metadata(rec),
          },
        ),
      );
      rec.followUps.push(m);
      return json(200, state.toApi(m));
    },
    { auth: false },
  );

  // Bulk overwrite: the stored list is exactly the body; ids survive for commands kept by name.
  for (const path of ['/applications/:app/commands', '/applications/:app/guilds/:guild/commands']) {
    const key = (c: Context): string => param(c, 'guild') || 'global';
    r.on('GET', path, (c) => json(200, state.commands.get(key(c)) ?? []));
    r.on('PUT', path, (c, body: Json) => {
      if (param(c, 'app') !== state.appId) return apiError(403, 50001, 'Missing Access');
      if (!Array.isArray(body))
        return formError({ _errors: [{ code: 'BASE_TYPE_ARRAY', message: 'Must be an array.' }] });
      const old = state.commands.get(key(c)) ?? [];
      const list = body.map((cmd: Json) => ({
        id: old.find((o) => o.name === cmd.name)?.id ?? snowflake(),
        application_id: state.appId,
        version: snowflake(),
        type: cmd.type ?? 1,
        name: cmd.name,
        description: cmd.description ?? '',
        options: cmd.options ?? [],
        default_member_permissions: cmd.default_member_permissions ?? null,
        nsfw: cmd.nsfw ?? false,
        contexts: cmd.contexts ?? null,
        integration_types: cmd.integration_types ?? [0],
        ...(param(c, 'guild') ? { guild_id: param(c, 'guild') } : {}),
      }));
      state.commands.set(key(c), list);
      return json(200, list);
    });
  }
}
