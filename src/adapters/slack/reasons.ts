// A button that must say why (CardButton.asksReason: a Deny under `deny_reason: required`) opens a modal at the
// click: views.open with the click's trigger_id, which Slack honours for 3 seconds, so it is opened before the
// click is acknowledged and nothing is recorded yet. The modal's view_submission carries the reason and, in its
// private_metadata, the button and the card it came from: it becomes the tap, with the reason (InboundAction).
// A blank reason is answered in the modal itself (response_action: errors) and decides nothing.
import type { webApi } from '@slack/bolt';
import { z } from 'zod';
import { type InboundAction, REASON_FORM, REASON_MAX } from '../../core/surface/index.ts';
import { slackError } from './errors.ts';
import { actorOf, chatRefOf, PLATFORM } from './ids.ts';

/** The modal's callback_id: Bolt routes its submissions to Kazma's listener by it. */
export const REASON_VIEW = 'kazma_reason';
const BLOCK = 'reason';
const INPUT = 'reason';

/** Where the click was: the card's channel, thread and message. */
export interface ReasonPlace {
  channel: string;
  threadTs?: string;
  messageTs?: string;
}

const metadata = z.object({
  a: z.string().min(1).max(256),
  c: z.string().min(1),
  t: z.string().optional(),
  m: z.string().optional(),
});

/** Opens the reason modal for the click `triggerId` on the button `actionId` (the core's id). */
export async function openReasonModal(
  client: webApi.WebClient,
  apiUrl: string,
  input: { triggerId: string; actionId: string; place: ReasonPlace },
): Promise<void> {
  const { place } = input;
  const privateMetadata = JSON.stringify({
    a: input.actionId,
    c: place.channel,
    ...(place.threadTs !== undefined && { t: place.threadTs }),
    ...(place.messageTs !== undefined && { m: place.messageTs }),
  } satisfies z.infer<typeof metadata>);
  try {
    await client.views.open({
      trigger_id: input.triggerId,
      view: {
        type: 'modal',
        callback_id: REASON_VIEW,
        private_metadata: privateMetadata,
        title: { type: 'plain_text', text: REASON_FORM.title },
        submit: { type: 'plain_text', text: 'Send' },
        close: { type: 'plain_text', text: 'Cancel' },
        blocks: [
          {
            type: 'input',
            block_id: BLOCK,
            label: { type: 'plain_text', text: REASON_FORM.label },
            element: {
              type: 'plain_text_input',
              action_id: INPUT,
              multiline: true,
              min_length: 1,
              max_length: REASON_MAX,
            },
          },
        ],
      },
    });
  } catch (error) {
    throw slackError('views.open', error, apiUrl);
  }
}

/** The fields of a view_submission Kazma reads. */
export interface SlackViewSubmission {
  type: string;
  trigger_id?: string;
  user: { id: string };
  view: {
    id: string;
    callback_id?: string;
    private_metadata?: string;
    state?: { values?: Record<string, Record<string, { value?: string | null }>> };
  };
}

/**
 * The tap a reason modal's submission stands for, with its reason; `blank` when the reason is empty or only
 * spaces (answered in the modal); undefined for a submission that is not a Kazma reason modal's.
 */
export function reasonSubmission(body: SlackViewSubmission): InboundAction | 'blank' | undefined {
  if (body.view.callback_id !== REASON_VIEW) return undefined;
  let place: z.infer<typeof metadata>;
  try {
    place = metadata.parse(JSON.parse(body.view.private_metadata ?? ''));
  } catch {
    return undefined;
  }
  const reason = (body.view.state?.values?.[BLOCK]?.[INPUT]?.value ?? '').trim();
  if (reason === '') return 'blank';
  const chat = chatRefOf(place.c, place.t);
  return {
    kind: 'action',
    // One submission per modal: a view's id names it, so Slack's retry of it is the same event.
    eventId: `view:${body.view.id}`,
    platform: PLATFORM,
    chat,
    actor: actorOf(body.user.id),
    actionId: place.a,
    ...(place.m !== undefined && { message: { chat, id: place.m } }),
    reason: reason.slice(0, REASON_MAX),
  };
}

/** What the modal shows under its field for a blank reason (Slack's `response_action: errors`). */
export const BLANK_REASON = { response_action: 'errors', errors: { [BLOCK]: REASON_FORM.blank } } as const;
