// A person's first direct message is answered with the welcome first, where their client does not open with
// `/start` (Discord and Slack DMs; Telegram sends /start itself, which answers with the same words).
import type { Clock } from '../clock.ts';
import { welcomedPeople, type Db } from '../db/index.ts';
import { CHAT_PLATFORMS, type InboundEvent } from '../surface/index.ts';
import { welcomeText } from './builtin.ts';
import type { CommandContext } from './registry.ts';

export class FirstWelcome {
  readonly #db: Db;
  readonly #clock: Clock;

  constructor(options: { db: Db; clock: Clock }) {
    this.#db = options.db;
    this.#clock = options.clock;
  }

  /**
   * The welcome for `event` when it is its sender's first direct message (recorded, so once per person
   * across processes and restarts); undefined otherwise.
   * Statement: INSERT … ON CONFLICT DO NOTHING RETURNING — the one process whose insert lands welcomes.
   */
  async first(event: InboundEvent, role: CommandContext['role']): Promise<string | undefined> {
    if (!event.direct || event.kind !== 'message') return undefined;
    const facts = CHAT_PLATFORMS[event.platform as keyof typeof CHAT_PLATFORMS];
    if (!facts || facts.opensWithStart) return undefined;
    const taken = await this.#db
      .insert(welcomedPeople)
      .values({ user: `${event.actor.platform}:${event.actor.id}`, welcomedAt: this.#clock.now() })
      .onConflictDoNothing()
      .returning({ user: welcomedPeople.user });
    return taken.length > 0 ? welcomeText(role, event.actor) : undefined;
  }
}
