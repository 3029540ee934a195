// The two discord.js parts Kazma uses. Inbound: a gateway Client (messages and interactions arrive over
// the websocket; discord.js resumes or reconnects a dropped one by itself). Outbound: one REST client
// Kazma owns, independent of the gateway, so replies go out while the socket is down, and still during
// shutdown after the gateway is closed. @discordjs/rest waits out every 429 (by its Retry-After) and
// retries 5xx and network failures `retries` times.
import { Client, GatewayIntentBits, Partials, REST } from 'discord.js';
import { discordRequest } from './rest-request.ts';

/** What Kazma asks the gateway for. MessageContent is privileged: enable it in the Developer Portal. */
export const INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
] as const;

/** How REST calls are retried and bounded. */
export interface RestOptions {
  /** Retries of a call that got a 5xx or no answer; default 3. 429s are always waited out. */
  retries?: number;
  /** One request's timeout; default 15,000 ms. */
  timeoutMs?: number;
}

/** `discord.api` without a trailing slash: discord.js appends `/v10` itself. */
export const apiBase = (api: string): string => api.replace(/\/+$/, '');

/**
 * The REST client every outbound call goes through.
 * @example createRest({ token, api: 'https://discord.com/api' })
 */
export function createRest(options: { token: string; api: string } & RestOptions): REST {
  return new REST({
    api: apiBase(options.api),
    retries: options.retries ?? 3,
    timeout: options.timeoutMs ?? 15_000,
    makeRequest: discordRequest(), // never through the global dispatcher (rest-request.ts)
  }).setToken(options.token);
}

/**
 * The gateway client. Partials.Channel: DMs arrive in channels discord.js has not cached, and would be
 * dropped without it. The gateway URL comes from `GET {api}/v10/gateway/bot`, so `api` is all it needs.
 */
export function createGatewayClient(options: { api: string }): Client {
  return new Client({
    intents: [...INTENTS],
    partials: [Partials.Channel],
    rest: { api: apiBase(options.api), makeRequest: discordRequest() },
    allowedMentions: { parse: [] },
  });
}
