// REST: gateway discovery, the bot's identity, channels and channel messages.
import type { Json } from './call-log.ts';
import { snowflake, type FakeState } from './model.ts';
import { apiError, fieldError, formError, json, noContent, param, type Router } from './router.ts';
import { validateMessage } from './validate.ts';

/** How long Discord remembers an enforced nonce ("the past few minutes"). */
const NONCE_WINDOW_MS = 5 * 60_000;

const unknownChannel = (): Response => apiError(404, 10003, 'Unknown Channel');
const unknownMessage = (): Response => apiError(404, 10008, 'Unknown Message');

export function channelRoutes(r: Router, state: FakeState, gatewayUrl: () => string): void {
  r.on('GET', '/gateway/bot', () =>
    json(200, {
      url: gatewayUrl(),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
    }),
  );
  r.on('GET', '/users/@me', () => json(200, state.bot));
  r.on('GET', '/applications/@me', () =>
    json(200, {
      id: state.appId,
      name: state.bot.username,
      icon: null,
      description: '',
      bot_public: true,
      bot_require_code_grant: false,
      verify_key: '0'.repeat(64),
      flags: 0,
      team: null,
      bot: state.bot,
    }),
  );

  r.on('GET', '/channels/:id', (c) => {
    const ch = state.channels.get(param(c, 'id'));
    return ch ? json(200, ch) : unknownChannel();
  });

  // user.send() / createDM(): one DM channel per recipient, as on Discord.
  r.on('POST', '/users/@me/channels', (_c, body: Json) => {
    const user = state.users.get(String(body?.recipient_id));
    if (!user) return apiError(404, 10013, 'Unknown User');
    const existing = [...state.channels.values()].find((ch) => ch.type === 1 && ch.recipients[0]?.id === user.id);
    return json(200, existing ?? state.dmChannel(snowflake(), user));
  });

  r.on('POST', '/channels/:id/typing', (c) => (state.channels.has(param(c, 'id')) ? noContent() : unknownChannel()));

  r.on('GET', '/channels/:id/messages', (c) => {
    const id = param(c, 'id');
    if (!state.channels.has(id)) return unknownChannel();
    const limit = Math.min(Number(c.req.query('limit') ?? 50), 100);
    const live = state
      .listed(id)
      .filter((m) => !m.deleted)
      .reverse(); // newest first, like Discord
    return json(
      200,
      live.slice(0, limit).map((m) => state.toApi(m)),
    );
  });

  r.on('GET', '/channels/:id/messages/:mid', (c) => {
    const m = state.messages.get(param(c, 'mid'));
    return m && !m.deleted && m.channel_id === param(c, 'id') ? json(200, state.toApi(m)) : unknownMessage();
  });

  // Discord: with enforce_nonce, a nonce this author used in this channel in the past few minutes returns
  // that message, and no new one is created. Nonces are at most 25 characters.
  const nonces = new Map<string, { id: string; at: number }>();
  r.on('POST', '/channels/:id/messages', (c, body: Json) => {
    const channelId = param(c, 'id');
    if (!state.channels.has(channelId)) return unknownChannel();
    const invalid = validateMessage(body, true);
    if (invalid) return invalid;
    if (body.nonce !== undefined && String(body.nonce).length > 25)
      return formError({ nonce: fieldError('BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.') });
    const nonceKey = body.enforce_nonce && body.nonce !== undefined ? `${channelId}/${body.nonce}` : undefined;
    const seen = nonceKey ? nonces.get(nonceKey) : undefined;
    if (seen && Date.now() - seen.at < NONCE_WINDOW_MS) return json(200, state.toApi(state.messages.get(seen.id)!));
    const extra: Json = {};
    const ref = body.message_reference;
    if (ref?.message_id) {
      const target = state.messages.get(String(ref.message_id));
      if (!target || target.deleted || target.channel_id !== (ref.channel_id ?? channelId)) {
        // fail_if_not_exists defaults to true on Discord; false sends a plain message instead
        if (ref.fail_if_not_exists !== false) {
          return formError({ message_reference: fieldError('MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message') });
        }
      } else {
        extra.type = 19; // REPLY
        extra.message_reference = {
          type: 0,
          message_id: target.id,
          channel_id: target.channel_id,
          ...(state.isDm(target.channel_id) ? {} : { guild_id: state.guild.id }),
        };
      }
    }
    const m = state.store(state.newMessage(channelId, state.bot, { ...body, flags: (body.flags ?? 0) & ~64 }, extra));
    if (nonceKey) nonces.set(nonceKey, { id: m.id, at: Date.now() });
    return json(200, state.toApi(m));
  });

  r.on('PATCH', '/channels/:id/messages/:mid', (c, body: Json) => {
    const m = state.messages.get(param(c, 'mid'));
    if (!m || m.deleted || m.channel_id !== param(c, 'id')) return unknownMessage();
    if (m.author.id !== state.bot.id) return apiError(403, 50005, 'Cannot edit a message authored by another user');
    const invalid = validateMessage(body, false);
    if (invalid) return invalid;
    return json(200, state.toApi(state.edit(m, body)));
  });

  r.on('DELETE', '/channels/:id/messages/:mid', (c) => {
    const m = state.messages.get(param(c, 'mid'));
    if (!m || m.deleted || m.channel_id !== param(c, 'id')) return unknownMessage();
    m.deleted = true;
    return noContent();
  });
}
