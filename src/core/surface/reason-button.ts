// A button that asks for a reason at the tap (CardButton.asksReason) goes out under an id of its own, so the
// adapter knows from the tap alone to open its form (a Slack modal, a Discord modal) — before anything is
// recorded, within the platform's 3 seconds — and which button the submitted reason belongs to.

const PREFIX = 'why:';

/** The id a platform gives a button that asks for a reason first: `why:<the core's id>`. */
export function reasonButtonId(id: string): string {
  return `${PREFIX}${id}`;
}

/** The core's button id behind a {@link reasonButtonId}; undefined for any other id. */
export function reasonButtonTarget(id: string): string | undefined {
  return id.startsWith(PREFIX) && id.length > PREFIX.length ? id.slice(PREFIX.length) : undefined;
}

/** The most a reason may be: what every platform's form and the inbox take. */
export const REASON_MAX = 1000;

/** What a form asks, and what it says to an empty (or blank) reason. */
export const REASON_FORM = {
  title: 'Why?',
  label: 'Reason (the model is told it)',
  blank: 'A reason is required: write why, or close this and leave the question open.',
} as const;
