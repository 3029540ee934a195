// Which channels are direct messages with whom. Learned from inbound DMs (a DM has no guild) and from
// opening DMs to send private text, so private text to a person in their own DM goes right there.
/** Pairs remembered before the oldest are forgotten (memory bound). */
const MAX = 10_000;

export class DirectMessages {
  readonly #userOf = new Map<string, string>();
  readonly #channelOf = new Map<string, string>();

  /** `channelId` is the DM between the bot and `userId`. */
  learn(channelId: string, userId: string): void {
    this.#userOf.delete(channelId);
    this.#userOf.set(channelId, userId);
    this.#channelOf.set(userId, channelId);
    while (this.#userOf.size > MAX) {
      const [oldChannel, oldUser] = this.#userOf.entries().next().value!;
      this.#userOf.delete(oldChannel);
      if (this.#channelOf.get(oldUser) === oldChannel) this.#channelOf.delete(oldUser);
    }
  }

  /** True when `channelId` is known to be the DM with `userId`. */
  isDmOf(channelId: string, userId: string): boolean {
    return this.#userOf.get(channelId) === userId;
  }

  /** The DM channel with `userId`, when known. */
  channelOf(userId: string): string | undefined {
    return this.#channelOf.get(userId);
  }
}
