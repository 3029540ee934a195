// Test harness: a fake Discord plus a REAL discord.js Client pointed at it, torn down after each test.
import { once } from 'node:events';
import { Client, Events, GatewayIntentBits, Partials, type Message } from 'discord.js';
import { afterEach } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordOptions } from './fake-discord.ts';

export const ALICE = { id: '1000000000000000042', username: 'alice' };
export const GENERAL = '1200000000000000001';
export const THREAD = '1200000000000000011';
export const DM = '1300000000000000001';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

export const ALL_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
];

export function newClient(fake: FakeDiscord, intents: GatewayIntentBits[] = ALL_INTENTS): Client {
  const client = new Client({
    intents,
    partials: [Partials.Channel], // DMs arrive in channels discord.js has not cached
    rest: { api: fake.api },
  });
  cleanups.push(() => client.destroy());
  return client;
}

/** Starts a fake and logs a real client in; resolves once discord.js emitted `ready` (guilds loaded). */
export async function connected(
  opts: FakeDiscordOptions = {},
  intents?: GatewayIntentBits[],
): Promise<{ fake: FakeDiscord; client: Client }> {
  const fake = await startFakeDiscord(opts);
  cleanups.push(() => fake.close());
  const client = newClient(fake, intents);
  const ready = once(client, Events.ClientReady);
  await client.login(fake.token);
  await ready;
  return { fake, client };
}

/** The next non-bot message the client receives (rejects after `ms`, so a lost event fails the test). */
export function nextUserMessage(client: Client, ms = 8000): Promise<Message> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(Events.MessageCreate, on);
      reject(new Error(`no messageCreate within ${ms} ms`));
    }, ms);
    const on = (m: Message): void => {
      if (m.author.bot) return;
      clearTimeout(timer);
      client.off(Events.MessageCreate, on);
      resolve(m);
    };
    client.on(Events.MessageCreate, on);
  });
}
