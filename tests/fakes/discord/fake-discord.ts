// A small, honest fake Discord for tests: REST under /api/v10 (hono) and the gateway websocket at
// /gateway on ONE node http server, 127.0.0.1, OS-assigned port. Drive it with the real discord.js:
//   new Client({ intents, partials: [Partials.Channel], rest: { api: fake.api } })
// discord.js finds the gateway itself via GET /gateway/bot, so nothing else needs pointing at the fake.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { CallLog, Failures, type FailureSpec } from './call-log.ts';
import { FakeGateway } from './gateway.ts';
import {
  apiUser,
  defaultGuild,
  FakeState,
  type ApiUser,
  type GuildSpec,
  type InteractionRecord,
  type StoredMessage,
  type UserInput,
} from './model.ts';
import { channelRoutes } from './rest-channels.ts';
import { interactionRoutes } from './rest-interactions.ts';
import type { HeldAnswer } from '../answer-holds.ts';
import { Router } from './router.ts';
import {
  UserActions,
  type ButtonClickInput,
  type ModalSubmitInput,
  type SlashCommandInput,
  type UserMessageInput,
} from './user-actions.ts';

export type { Call, CallLog, CallPredicate, FailureSpec, Json } from './call-log.ts';
export type { ApiUser, GuildSpec, ChannelSpec, InteractionRecord, StoredMessage, UserInput } from './model.ts';
export type { ButtonClickInput, ModalSubmitInput, SlashCommandInput, UserMessageInput } from './user-actions.ts';

export interface FakeDiscordOptions {
  token?: string;
  botUser?: UserInput;
  /** Defaults to the bot user's id, as for every real bot application. */
  applicationId?: string;
  guild?: Partial<GuildSpec>;
  /** HELLO's heartbeat_interval. Short by default so missed-ACK (zombie) tests finish in seconds. */
  heartbeatIntervalMs?: number;
  /** How long an interaction may go unanswered before callbacks get 10062 (Discord: 3 s). */
  interactionDeadlineMs?: number;
}

export interface FakeDiscord {
  /** `http://127.0.0.1:PORT/api` — discord.js `rest.api` (it appends /v10 itself). */
  api: string;
  port: number;
  token: string;
  bot: ApiUser;
  applicationId: string;
  guild: GuildSpec;
  calls: CallLog;
  /** Messages listed in a channel, oldest first (deleted ones kept with `deleted: true`; ephemeral never listed). */
  messages(channelId: string): StoredMessage[];
  /** Callbacks, @original (message + edits) and follow-ups of one interaction. */
  interactionResponses(interactionId: string): InteractionRecord & { original?: StoredMessage };
  /** Registered commands: global, or for a guild id. */
  commands(guildId?: string): unknown[];
  sendUserMessage(input: UserMessageInput): { id: string; channelId: string };
  clickButton(input: ButtonClickInput): { id: string; token: string };
  slashCommand(input: SlashCommandInput): { id: string; token: string };
  /** The user submits the modal an interaction was answered with (type 9): a MODAL_SUBMIT interaction. */
  submitModal(input: ModalSubmitInput): { id: string; token: string };
  /** The next `times` (default 1) calls on `route` (e.g. `POST /channels/:id/messages`) fail like this. */
  failNext(route: string, spec: FailureSpec): void;
  /** See Router.holdAnswer: the call is acted on, its answer held until `release`. */
  holdAnswer(route: string, options?: { after?: number }): HeldAnswer;
  /** Kills the gateway socket(s): no code = abnormal drop (client sees 1006), else a close frame with `code`. */
  dropConnection(opts?: { code?: number }): void;
  /** The current gateway connection stops ACKing heartbeats; reconnections are ACKed normally. */
  stopAckingHeartbeats(): void;
  /** Every request for an attachment's bytes from the fake's CDN. */
  readonly downloads: Array<{ path: string; status: number }>;
  /** Gateway session counters: IDENTIFYs, successful RESUMEs, RESUMEs refused with op 9. */
  readonly sessions: { identifies: number; resumes: number; invalidSessions: number; liveConnections: number };
  close(): Promise<void>;
}

export async function startFakeDiscord(opts: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const token = opts.token ?? 'fake-discord-bot-token';
  const bot = apiUser({ id: '1000000000000000001', username: 'kazma', ...opts.botUser, bot: true });
  const applicationId = opts.applicationId ?? bot.id;
  const guild: GuildSpec = { ...defaultGuild(), ...opts.guild };
  const state = new FakeState(token, bot, applicationId, guild);
  const calls = new CallLog();
  const failures = new Failures();
  const router = new Router(calls, failures, token);
  let port = 0;
  const wsUrl = (): string => `ws://127.0.0.1:${port}/gateway`;
  channelRoutes(router, state, wsUrl);
  interactionRoutes(router, state, () => opts.interactionDeadlineMs ?? 3000);

  // The CDN: an attachment's bytes at its URL, as long as its message exists (no token asked, as Discord's).
  router.app.get('/attachments/:channel/:id/:name', (c) => {
    const id = c.req.param('id');
    const file = [...state.messages.values()]
      .filter((m) => m.channel_id === c.req.param('channel'))
      .flatMap((m) => m.attachments.map((a, i) => ({ a, data: m.files[i]?.data })))
      .find(({ a }) => a.id === id);
    state.downloads.push({ path: c.req.path, status: file?.data ? 200 : 404 });
    if (!file?.data) return c.text('Not Found', 404);
    return new Response(new Uint8Array(file.data), {
      headers: { 'content-type': String(file.a.content_type ?? 'application/octet-stream') },
    });
  });
  const server = createAdaptorServer({ fetch: router.app.fetch }) as Server;
  const gateway = new FakeGateway({
    server,
    token,
    log: calls,
    heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 1000,
    resumeUrl: wsUrl,
    onIdentify: () => ({
      ready: {
        v: 10,
        user: { ...bot, verified: true, mfa_enabled: false, flags: 0 },
        guilds: [{ id: guild.id, unavailable: true }],
        application: { id: applicationId, flags: 0 },
        private_channels: [],
        presences: [],
        relationships: [],
        guild_join_requests: [],
        geo_ordered_rtc_regions: [],
        user_settings: {},
      },
      // biome-ignore lint/suspicious/noThenProperty: the fake's own script field, never awaited.
      then: [{ t: 'GUILD_CREATE', d: state.guildCreate() }], // discord.js waits for it before 'ready'
    }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  state.cdnBase = `http://127.0.0.1:${port}`;
  const actions = new UserActions(state, gateway);

  return {
    api: `http://127.0.0.1:${port}/api`,
    port,
    token,
    bot,
    applicationId,
    guild,
    calls,
    messages: (channelId) => state.listed(channelId),
    interactionResponses: (id) => {
      const rec = state.interactions.get(id);
      if (!rec) throw new Error(`fake discord: unknown interaction ${id}`);
      return { ...rec, original: rec.originalId ? state.messages.get(rec.originalId) : undefined };
    },
    commands: (guildId) => state.commands.get(guildId ?? 'global') ?? [],
    sendUserMessage: (input) => actions.sendMessage(input),
    downloads: state.downloads,
    clickButton: (input) => actions.clickButton(input),
    slashCommand: (input) => actions.slashCommand(input),
    submitModal: (input) => actions.submitModal(input),
    failNext: (route, spec) => failures.add(route, spec),
    holdAnswer: (route, options) => router.holdAnswer(route, options),
    dropConnection: (o = {}) => gateway.drop(o.code),
    stopAckingHeartbeats: () => gateway.stopAcking(),
    get sessions() {
      return { ...gateway.counts, liveConnections: gateway.liveConnections };
    },
    close: async () => {
      await gateway.close();
      // undici keeps REST sockets alive; without this server.close() would wait for them.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
