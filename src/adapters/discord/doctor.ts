// `kazma doctor` checks for Discord: does the token work (GET /users/@me), and is the application the one
// configured, with the Message Content intent Kazma asks for (GET /applications/@me). Each check resolves
// with what is fine or throws what is wrong and how to fix it.
import { ApplicationFlags, Routes, type APIApplication, type APIUser } from 'discord.js';
import { assertPlatformSection, type KazmaConfig } from '../../core/config/index.ts';
import type { DoctorCheck } from '../../core/doctor.ts';
import { apiBase, createRest } from './client.ts';
import { discordError } from './errors.ts';

/** Either flag means the privileged Message Content intent is on (verified apps get the first). */
const MESSAGE_CONTENT = ApplicationFlags.GatewayMessageContent | ApplicationFlags.GatewayMessageContentLimited;

/** The checks for an enabled Discord: the token, then the application and its intent. */
export function discordChecks(config: KazmaConfig['discord']): DoctorCheck[] {
  const api = apiBase(config.api);
  const rest = createRest({ token: config.token, api, retries: 1 });
  const get = async <T>(route: `/${string}`, label: string): Promise<T> => {
    try {
      return (await rest.get(route)) as T;
    } catch (error) {
      throw discordError(label, error, api);
    }
  };
  return [
    {
      name: 'discord token',
      run: async () => {
        assertPlatformSection('discord', config); // the rules config check applies, e.g. the token is set
        const me = await get<APIUser>(Routes.user(), 'GET /users/@me');
        return `bot @${me.username} (id ${me.id}) answers at ${api}`;
      },
    },
    {
      name: 'discord application',
      run: async () =>
        describeApplication(config, await get<APIApplication>(Routes.currentApplication(), 'GET /applications/@me')),
    },
  ];
}

/** Whether the token's application is the configured one and may read message content. */
export function describeApplication(
  config: Pick<KazmaConfig['discord'], 'application_id'>,
  app: Pick<APIApplication, 'id' | 'name'> & { flags?: number },
): string {
  if (config.application_id && config.application_id !== app.id) {
    throw new Error(
      `discord.application_id is ${config.application_id}, but the token belongs to application ${app.id} ` +
        `(${app.name}): fix one of them`,
    );
  }
  if (((app.flags ?? 0) & MESSAGE_CONTENT) === 0) {
    throw new Error(
      `application ${app.id} (${app.name}) has the Message Content intent off: turn on "Message Content Intent" in ` +
        `the Developer Portal (Bot → Privileged Gateway Intents), or Discord refuses the gateway connection`,
    );
  }
  return `application ${app.id} (${app.name}) may read message content`;
}
