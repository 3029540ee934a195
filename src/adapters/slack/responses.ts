// A click or a slash command comes with a `response_url`: Slack's way to answer that person privately
// (an ephemeral message) even where the app is not a member, for 30 minutes. While the core handles
// such an event, its private answers (refusals, "already decided by …", a /kazma command's output) go
// there; otherwise the surface falls back to chat.postEphemeral.

/** Posts one ephemeral answer through a response URL (Bolt's `respond`). */
export type RespondFn = (message: {
  response_type: 'ephemeral';
  replace_original: false;
  text: string;
  thread_ts?: string;
}) => Promise<unknown>;

interface Open {
  channel: string;
  user: string;
  respond: RespondFn;
}

export class ResponseUrls {
  readonly #open: Open[] = [];

  /** An interaction of `user` in `channel` is being handled; the returned function ends it. */
  open(channel: string, user: string, respond: RespondFn): () => void {
    const entry = { channel, user, respond };
    this.#open.push(entry);
    return () => {
      const index = this.#open.indexOf(entry);
      if (index !== -1) this.#open.splice(index, 1);
    };
  }

  /** The newest open response URL of `user` in `channel`, if any. */
  find(channel: string, user: string): RespondFn | undefined {
    for (let i = this.#open.length - 1; i >= 0; i--) {
      const entry = this.#open[i]!;
      if (entry.channel === channel && entry.user === user) return entry.respond;
    }
    return undefined;
  }

  /** Interactions being handled now (for tests and shutdown logs). */
  get size(): number {
    return this.#open.length;
  }
}
