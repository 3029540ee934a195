// A button that must say why (CardButton.asksReason: a Deny under `deny_reason: required`) answers its tap with a
// modal — interaction response type 9, which Discord allows only as the first answer, within 3 seconds — so the
// tap is not recorded. The modal's submission (a MODAL_SUBMIT interaction, with the card's message) is the tap,
// with the reason; a blank one is answered privately and decides nothing.
import { ComponentType, InteractionResponseType, TextInputStyle } from 'discord.js';
import { type InboundAction, REASON_FORM, REASON_MAX, reasonButtonTarget } from '../../core/surface/index.ts';
import { actionEvent, type InteractionView } from './events.ts';

const INPUT = 'reason';

/** The modal a reason button's tap answers with; its custom_id is the button's, so the submission names it. */
export function reasonModal(customId: string): Record<string, unknown> {
  return {
    type: InteractionResponseType.Modal,
    data: {
      custom_id: customId,
      title: REASON_FORM.title,
      components: [
        {
          type: ComponentType.Label,
          label: REASON_FORM.label,
          component: {
            type: ComponentType.TextInput,
            custom_id: INPUT,
            style: TextInputStyle.Paragraph,
            required: true,
            min_length: 1,
            max_length: REASON_MAX,
          },
        },
      ],
    },
  };
}

/** What Kazma reads of a modal's submission. */
export interface ModalSubmissionView {
  customId: string;
  /** The text input's value by its custom_id. */
  value: (customId: string) => string | undefined;
  /** The card's message the modal was opened from. */
  messageId: string | undefined;
}

/**
 * The tap a reason modal's submission stands for, with its reason; `blank` for an empty or all-space reason;
 * undefined for a submission that is not a reason modal's.
 */
export function reasonSubmission(
  view: InteractionView,
  modal: ModalSubmissionView,
  botId: string,
): InboundAction | 'blank' | undefined {
  const actionId = reasonButtonTarget(modal.customId);
  if (actionId === undefined || modal.messageId === undefined) return undefined;
  const reason = (modal.value(INPUT) ?? '').trim();
  if (reason === '') return 'blank';
  return { ...actionEvent(view, actionId, modal.messageId, botId), reason: reason.slice(0, REASON_MAX) };
}
