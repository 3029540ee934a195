// discord.js events in, InboundEvents out. A replayed dispatch (after a gateway RESUME) is dropped here by
// its id, and again durably by the inbox. Each event is recorded before anything else happens to it; the
// turn runs without being waited for, so the gateway listener never waits on a model, and the pipeline
// keeps each chat's turns in order. Interactions are acknowledged first (interactions.ts), then handled.
import { attachmentsOf } from './files.ts';
import {
  InteractionResponseType,
  MessageFlags,
  MessageType,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type Message,
  type ModalSubmitInteraction,
} from 'discord.js';
import { InFlight, type Accepted, type PlatformCoreLink, type TypingRefresher } from '../../core/chat/index.ts';
import {
  InvalidInboundEventError,
  REASON_FORM,
  reasonButtonTarget,
  type ChatRef,
  type InboundEvent,
} from '../../core/surface/index.ts';
import type { Logger } from '../../core/log/index.ts';
import type { DirectMessages } from './dms.ts';
import {
  actionEvent,
  commandEvent,
  messageEvent,
  type GuildMode,
  type InteractionView,
  type MessageView,
} from './events.ts';
import type { Interactions, OpenInteraction } from './interactions.ts';
import { reasonModal, reasonSubmission } from './reasons.ts';

/** Options for {@link DiscordInbound}. */
export interface DiscordInboundOptions {
  pipeline: PlatformCoreLink['pipeline'];
  /** Tells a chat that a message could not be taken in (sent through REST, which works without the gateway). */
  tellUnrecorded?: (chat: ChatRef, text: string) => Promise<unknown>;
  /** Pauses between attempts to record an event while the inbox is down; default 0.25 s doubling to 8 s. */
  recordRetryDelaysMs?: readonly number[];
  /** The bot's user id, known once the gateway is ready. */
  me: () => string | undefined;
  guildMessages: GuildMode;
  interactions: Interactions;
  typing: TypingRefresher;
  dms: DirectMessages;
  logger?: Logger;
  /** Event ids remembered against replays; default 10,000. */
  remember?: number;
}

const STOPPING = 'Kazma is restarting; try again in a minute.';
const NOT_RECORDED =
  '⚠️ I could not take that in just now (my database did not answer), so nothing was done. Please send it again in ' +
  'a minute.';

export class DiscordInbound {
  readonly #o: DiscordInboundOptions;
  readonly #seen = new Set<string>();
  readonly #inflight = new InFlight();

  constructor(options: DiscordInboundOptions) {
    this.#o = options;
  }

  /**
   * Takes one MESSAGE_CREATE: converts it and records it. A gateway event cannot be refused back to
   * Discord, so when the inbox cannot record it the event is retried here for a while, and if it still
   * cannot be recorded the author is told to send it again. Never throws.
   */
  takeMessage(message: Message): void {
    const botId = this.#o.me();
    if (!botId || !this.#first(message.id)) return;
    const view = messageView(message, botId);
    if (!view.inGuild && !view.author.bot) this.#o.dms.learn(view.place.channelId, view.author.id);
    const event = messageEvent(view, botId, this.#o.guildMessages);
    if (!event) return;
    this.#inflight.track(
      (async () => {
        const accepted = await this.#accept(event);
        if (!accepted) {
          await this.#o.tellUnrecorded?.(event.chat, NOT_RECORDED).catch(() => undefined);
          return;
        }
        await accepted.done;
        this.#o.typing.stop(event.chat);
      })().catch((error: unknown) =>
        this.#o.logger?.error({ err: error, message: message.id }, 'handling a Discord message failed'),
      ),
    );
  }

  /**
   * Takes one INTERACTION_CREATE (buttons, reason modals and slash commands; anything else is not Kazma's):
   * acknowledged at once (Discord's 3-second rule), then recorded — retried a while if the inbox is down, else the
   * person is told privately — then handled. A button that asks why is answered with its modal instead, and its
   * submission is the tap. Never throws.
   */
  takeInteraction(interaction: Interaction): void {
    const botId = this.#o.me();
    const ours = interaction.isButton() || interaction.isChatInputCommand() || interaction.isModalSubmit();
    if (!botId || !ours || !this.#first(interaction.id)) return;
    const view = interactionView(interaction);
    if (!view) return; // buttons and commands always come from a channel; nothing to answer otherwise
    const { interactions } = this.#o;
    if (interaction.isButton() && reasonButtonTarget(interaction.customId) !== undefined) {
      this.#inflight.track(interactions.respond(interaction, reasonModal(interaction.customId)));
      return;
    }
    const event = interaction.isButton()
      ? actionEvent(view, interaction.customId, interaction.message.id, botId)
      : interaction.isModalSubmit()
        ? reasonSubmission(view, modalView(interaction), botId)
        : commandEvent(
            view,
            interaction.commandName,
            (interaction as ChatInputCommandInteraction).options.getString('args'),
          );
    if (event === undefined) return;
    if (event === 'blank') {
      const blank = {
        type: InteractionResponseType.ChannelMessageWithSource,
        data: { content: REASON_FORM.blank, flags: MessageFlags.Ephemeral },
      };
      this.#inflight.track(interactions.respond(interaction, blank));
      return;
    }
    const open: OpenInteraction = {
      id: interaction.id,
      token: interaction.token,
      applicationId: interaction.applicationId,
      kind: interaction.isChatInputCommand() ? 'command' : 'button',
      chat: event.chat,
      actorId: event.actor.id,
      acknowledged: false,
      pendingOriginal: false,
      closed: false,
    };
    this.#inflight.track(
      (async () => {
        await interactions.acknowledge(open);
        const outcome = await interactions.run(open, async () => {
          const accepted = await this.#accept(event);
          return accepted ? accepted.done : 'unrecorded';
        });
        if (outcome === 'stopping') await interactions.answer(open, [STOPPING]).catch(() => {});
        if (outcome === 'unrecorded') await interactions.answer(open, [NOT_RECORDED]).catch(() => {});
        await interactions.finish(open, '✓');
      })().catch((error: unknown) =>
        this.#o.logger?.error({ err: error, interaction: interaction.id }, 'handling a Discord interaction failed'),
      ),
    );
  }

  /** Records the event, retrying while the inbox is unavailable; undefined when it never could. */
  async #accept(event: InboundEvent): Promise<Accepted | undefined> {
    const delays = this.#o.recordRetryDelaysMs ?? [250, 500, 1000, 2000, 4000, 8000];
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#o.pipeline.accept(event);
      } catch (error) {
        const delay = delays[attempt];
        if (error instanceof InvalidInboundEventError || delay === undefined) {
          this.#o.logger?.error(
            { err: error, event: event.eventId },
            'a Discord event could not be recorded; its sender is told to send it again',
          );
          return undefined;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** True when the event with this id was taken (tests and shutdown logs). */
  hasTaken(id: string): boolean {
    return this.#seen.has(id);
  }

  /** Resolves when every event taken so far has been handled (turns finished or paused). */
  idle(): Promise<void> {
    return this.#inflight.idle();
  }

  /** Remembers `id`; false when it was seen before (a replay). */
  #first(id: string): boolean {
    if (this.#seen.has(id)) return false;
    this.#seen.add(id);
    while (this.#seen.size > (this.#o.remember ?? 10_000)) this.#seen.delete(this.#seen.values().next().value!);
    return true;
  }
}

/** What Kazma reads of a discord.js Message. */
export function messageView(message: Message, botId: string): MessageView {
  const channel = message.channel;
  return {
    id: message.id,
    place: { channelId: message.channelId, parentId: channel.isThread() ? channel.parentId : null },
    inGuild: message.guildId !== null,
    author: {
      id: message.author.id,
      username: message.author.username,
      globalName: message.author.globalName,
      bot: message.author.bot || message.webhookId !== null,
    },
    content: message.content,
    fromUser: message.type === MessageType.Default || message.type === MessageType.Reply,
    repliedToBot: message.mentions.repliedUser?.id === botId,
    attachments: attachmentsOf(message.attachments.values()),
  };
}

/** What Kazma reads of a modal's submission: its id, its text inputs, and the card it was opened from. */
function modalView(interaction: ModalSubmitInteraction) {
  return {
    customId: interaction.customId,
    value: (id: string) => {
      const field = interaction.fields.fields.get(id);
      return field && 'value' in field && typeof field.value === 'string' ? field.value : undefined;
    },
    messageId: interaction.message?.id,
  };
}

function interactionView(
  interaction: ButtonInteraction | ChatInputCommandInteraction | ModalSubmitInteraction,
): InteractionView | undefined {
  const channel = interaction.channel;
  if (!interaction.channelId) return undefined;
  return {
    id: interaction.id,
    place: { channelId: interaction.channelId, parentId: channel?.isThread() ? channel.parentId : null },
    user: { id: interaction.user.id, username: interaction.user.username, globalName: interaction.user.globalName },
  };
}
