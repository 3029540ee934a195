// A fake platform acting on a call and holding its answer: the call's effect is stored, as the platform
// would, but the client reads no answer until the test releases it — how a send's answer is lost when
// the client is killed meanwhile. Shared by the fakes that offer `holdAnswer`.

/** `held` resolves once the platform acted on the call; `release` lets its answer go. */
export interface HeldAnswer {
  held: Promise<void>;
  release(): void;
}

/** The holds of one fake, by route or method name. */
export class AnswerHolds {
  readonly #holds = new Map<string, Array<{ skip: number; acted: () => void; gate: Promise<void> }>>();

  /** Holds the answer to the call on `route` after `after` more (default 0). */
  hold(route: string, options: { after?: number } = {}): HeldAnswer {
    let acted!: () => void;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (acted = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.#holds.set(route, [...(this.#holds.get(route) ?? []), { skip: options.after ?? 0, acted, gate }]);
    return { held, release };
  }

  /** Called after the fake acted on a call on `route`, before it answers: waits while that answer is held. */
  async answer(route: string): Promise<void> {
    const head = this.#holds.get(route)?.[0];
    if (!head) return;
    if (head.skip-- > 0) return;
    this.#holds.get(route)!.shift();
    head.acted();
    await head.gate;
  }
}
