import type { ChatRef, Actor, MessageRef } from '../surface/index.ts';
import { KazmaError } from '../errors.ts';

/** What a button tap means once its owner has read it: which chat's queue it waits in, and the work. */
export interface RoutedAction {
  /**
   * The queue it must stay in order with: the question's origin chat (not the card's), or `thread:<id>`; none: at once.
   */
  queue?: string;
  /**
   * Decides as `actor`, who tapped in `via`. `eventKey` names the tap (its turn id, `<platform>:<event id>`):
   * the same tap run again (taken up after a stop) is the same attempt. `tapped`: the card's message, when
   * the platform says which one was tapped. `reason`: what the person wrote in the form the button opened.
   */
  run(input: { actor: Actor; via: ChatRef; eventKey: string; tapped?: MessageRef; reason?: string }): Promise<void>;
}

/** Reads the button ids that start with one prefix; undefined for an id it does not know (any more). */
export interface ActionHandler {
  route(actionId: string): Promise<RoutedAction | undefined>;
}

/** Two handlers claimed one button prefix. */
export class DuplicateActionPrefixError extends KazmaError {
  constructor(prefix: string) {
    super('action_prefix_duplicate', `button prefix "${prefix}" is already registered`);
  }
}

/**
 * Every card button id is `<prefix>:<rest>`; the module that made the card registers its prefix here
 * (approvals `apv`, questions `q`), like commands by name. The pipeline hands each tap to `route`.
 */
export class ActionRouter {
  readonly #handlers = new Map<string, ActionHandler>();

  register(prefix: string, handler: ActionHandler): this {
    if (!/^[a-z]{1,8}$/.test(prefix)) throw new Error(`button prefix "${prefix}" must be 1-8 lower-case letters`);
    if (this.#handlers.has(prefix)) throw new DuplicateActionPrefixError(prefix);
    this.#handlers.set(prefix, handler);
    return this;
  }

  /** The tap's meaning, or undefined for a button nobody here owns (an old card, a forged id). */
  async route(actionId: string): Promise<RoutedAction | undefined> {
    const prefix = actionId.slice(0, actionId.indexOf(':'));
    return this.#handlers.get(prefix)?.route(actionId);
  }
}
