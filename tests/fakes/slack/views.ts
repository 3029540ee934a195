// Modals, as Slack runs them for an app: every click and slash command carries a trigger_id, which views.open
// exchanges for a modal shown to that user — once (exchanged_trigger_id), within 3 seconds (expired_trigger_id).
// The view is checked as Slack checks it (a modal, a title of at most 24 characters, input blocks need a submit
// button, private_metadata of at most 3000 characters, callback_id of at most 255). The person then fills the
// inputs and submits: `submission` builds the view_submission payload Slack posts to the Request URL (a required
// input left empty is refused as the Slack client refuses it), and the app's answer is read as Slack reads it
// (an empty 200 closes the modal; `response_action: errors` keeps it open with the messages under the fields).
import type { Identity } from './store.ts';

type Json = Record<string, unknown>;

/** How long a trigger_id may be exchanged for a modal. */
const TRIGGER_LIFETIME_MS = 3000;

/** A modal the app opened for a user. */
export interface OpenView {
  id: string;
  user: string;
  view: Json;
  /** True once a submission closed it. */
  closed: boolean;
  /** The app's `errors` answers to submissions it refused, in order. */
  errors: Array<Record<string, string>>;
}

const text = (v: unknown): string | undefined =>
  typeof v === 'object' && v !== null && typeof (v as Json).text === 'string'
    ? ((v as Json).text as string)
    : undefined;

/** The reason Slack refuses `view`, or undefined when it takes it. */
function invalidView(view: unknown): string | undefined {
  if (typeof view !== 'object' || view === null) return 'invalid_arguments';
  const v = view as Json;
  const title = text(v.title);
  const blocks = Array.isArray(v.blocks) ? (v.blocks as Json[]) : undefined;
  if (v.type !== 'modal' || !title || [...title].length > 24 || !blocks || blocks.length > 100)
    return 'invalid_arguments';
  if (typeof v.private_metadata === 'string' && v.private_metadata.length > 3000) return 'invalid_arguments';
  if (typeof v.callback_id === 'string' && v.callback_id.length > 255) return 'invalid_arguments';
  const inputs = blocks.filter((b) => b.type === 'input');
  if (inputs.length > 0 && !text(v.submit)) return 'invalid_arguments';
  const wellFormed = inputs.every(
    (b) => text(b.label) && typeof b.element === 'object' && typeof (b.element as Json).action_id === 'string',
  );
  return wellFormed ? undefined : 'invalid_arguments';
}

export class SlackViews {
  readonly open: OpenView[] = [];
  readonly #triggers = new Map<string, { user: string; at: number; used: boolean }>();
  #seq = 0;

  constructor(private readonly id: Identity) {}

  /** A trigger_id for an interaction of `user` (a click, a slash command), as Slack puts in its payload. */
  trigger(user: string): string {
    const n = ++this.#seq;
    const trigger = `${1_700_000_000 + n}.${4_200_000 + n}.${n.toString(16).padStart(24, '0')}`;
    this.#triggers.set(trigger, { user, at: Date.now(), used: false });
    return trigger;
  }

  /** views.open; undefined for any other method. */
  handle(method: string, args: Json): Json | undefined {
    if (method !== 'views.open') return undefined;
    const trigger = typeof args.trigger_id === 'string' ? this.#triggers.get(args.trigger_id) : undefined;
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    if (trigger.used) return { ok: false, error: 'exchanged_trigger_id' };
    if (Date.now() - trigger.at > TRIGGER_LIFETIME_MS) return { ok: false, error: 'expired_trigger_id' };
    const view = typeof args.view === 'string' ? (JSON.parse(args.view) as unknown) : args.view;
    const invalid = invalidView(view);
    if (invalid) return { ok: false, error: invalid };
    trigger.used = true;
    const id = `V0${(++this.#seq).toString(36).toUpperCase().padStart(8, '0')}`;
    const shown: Json = {
      ...(view as Json),
      id,
      team_id: this.id.teamId,
      state: { values: {} },
      hash: `${Math.floor(Date.now() / 1000)}.${id.toLowerCase()}`,
      root_view_id: id,
      app_id: this.id.appId,
      bot_id: this.id.botId,
    };
    this.open.push({ id, user: trigger.user, view: shown, closed: false, errors: [] });
    return { ok: true, view: shown };
  }

  /**
   * The view_submission payload of `user` submitting the open modal `viewId` with `values` (action_id → text).
   * Throws where the Slack client would not let them submit: not their modal, closed, a required input empty.
   */
  submission(input: { viewId: string; user: string; values: Record<string, string> }): Json {
    const open = this.open.find((v) => v.id === input.viewId);
    if (!open || open.closed) throw new Error(`fake Slack: no open modal ${input.viewId}`);
    if (open.user !== input.user) throw new Error(`fake Slack: modal ${input.viewId} is ${open.user}'s`);
    const values: Record<string, Record<string, Json>> = {};
    for (const block of (open.view.blocks as Json[]).filter((b) => b.type === 'input')) {
      const element = block.element as Json;
      const actionId = element.action_id as string;
      const value = input.values[actionId] ?? '';
      if (!block.optional && value === '') throw new Error(`fake Slack: the required input ${actionId} is empty`);
      if (typeof element.max_length === 'number' && [...value].length > element.max_length)
        throw new Error(`fake Slack: input ${actionId} is longer than its max_length`);
      values[String(block.block_id)] = { [actionId]: { type: element.type, value } };
    }
    return {
      type: 'view_submission',
      team: { id: this.id.teamId, domain: this.id.teamId.toLowerCase() },
      user: { id: input.user, username: input.user.toLowerCase(), name: input.user.toLowerCase() },
      api_app_id: this.id.appId,
      token: 'fake-verification-token',
      trigger_id: this.trigger(input.user),
      view: { ...open.view, state: { values } },
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    };
  }

  /** Reads the app's answer to a submission of `viewId`, as Slack does: closes it, or keeps it with errors. */
  answered(viewId: string, status: number, body: string): void {
    const open = this.open.find((v) => v.id === viewId);
    if (!open || status !== 200) return; // anything else: Slack shows "We had some trouble connecting"
    const answer = body === '' ? undefined : (JSON.parse(body) as Json);
    if (answer?.response_action === 'errors') open.errors.push(answer.errors as Record<string, string>);
    else open.closed = true;
  }
}
