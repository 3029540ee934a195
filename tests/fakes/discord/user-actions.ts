// What a human does in the Discord client, turned into the gateway dispatches Discord would send.
// Inputs are checked against the fake's state (the button must exist, the command must be registered),
// because Discord never produces events for things that are not there.
import type { Json } from './call-log.ts';
import type { FakeGateway } from './gateway.ts';
import {
  apiUser,
  guildChannel,
  interactionToken,
  Intents,
  snowflake,
  type ApiUser,
  type FakeState,
  type UserInput,
} from './model.ts';
import { findButton } from './validate.ts';
import { modalSubmitData } from './modals.ts';

export interface UserMessageInput {
  channelId: string;
  author: UserInput;
  content: string;
  /** false = a DM (the channel is created on first use); omitted = whatever the channel is. */
  guild?: boolean;
  /** Prefixes `<@bot>` unless already present, and lists the bot in `mentions`. */
  mentionsBot?: boolean;
  /** Posting in a thread not yet known: it is created under this parent (THREAD_CREATE first). */
  threadParent?: string;
  /** Files attached to the message, served from the fake's CDN. */
  files?: Array<{ name: string; type: string; data: Buffer }>;
}
export interface ButtonClickInput {
  channelId: string;
  messageId: string;
  user: UserInput;
  customId: string;
  guild?: boolean;
}
export interface ModalSubmitInput {
  /** The interaction answered with the modal (a button's tap, a slash command). */
  interactionId: string;
  user: UserInput;
  /** Text input custom_id → what the user typed. */
  values: Record<string, string>;
}
export interface SlashCommandInput {
  name: string;
  options?: Record<string, string | number | boolean>;
  user: UserInput;
  channelId: string;
}

const fail = (msg: string): never => {
  throw new Error(`fake discord: ${msg}`);
};
const PERMISSIONS = '1071698660929';

export class UserActions {
  constructor(
    private readonly state: FakeState,
    private readonly gateway: FakeGateway,
  ) {}

  sendMessage(input: UserMessageInput): { id: string; channelId: string } {
    const { state } = this;
    const author = this.user(input.author);
    const ch = this.channel(input.channelId, input.guild, author, input.threadParent);
    const dm = ch.type === 1;
    const mention = `<@${state.bot.id}>`;
    const content =
      input.mentionsBot && !input.content.includes(mention) ? `${mention} ${input.content}` : input.content;
    const mentioned = content.includes(mention);
    const body = { content, ...(input.files && { _files: input.files }) };
    const m = state.store(state.newMessage(ch.id, author, body, { mentions: mentioned ? [state.bot] : [] }));
    const d = { ...state.toApi(m), channel_type: ch.type, ...(dm ? {} : { member: this.member() }) };
    this.gateway.dispatch('MESSAGE_CREATE', (intents) => {
      if (!(intents & (dm ? Intents.DirectMessages : Intents.GuildMessages))) return null;
      // Without the privileged MESSAGE_CONTENT intent Discord blanks guild content unless the bot is mentioned.
      if (!dm && !mentioned && !(intents & Intents.MessageContent))
        return { ...d, content: '', embeds: [], attachments: [], components: [] };
      return d;
    });
    return { id: m.id, channelId: ch.id };
  }

  clickButton(input: ButtonClickInput): { id: string; token: string } {
    const m = this.state.messages.get(input.messageId);
    if (!m || m.deleted || m.channel_id !== input.channelId)
      fail(`no message ${input.messageId} in ${input.channelId}`);
    const button = findButton(m!.components, input.customId);
    if (!button) fail(`message ${input.messageId} has no button "${input.customId}"`);
    if (button.disabled) fail(`button "${input.customId}" is disabled`);
    return this.interaction(
      3,
      input.channelId,
      input.user,
      input.guild,
      {
        data: { custom_id: input.customId, component_type: 2 },
        message: this.state.toApi(m!),
      },
      m!.id,
    );
  }

  /** The user submits the modal an interaction was answered with: a MODAL_SUBMIT interaction (type 5). */
  submitModal(input: ModalSubmitInput): { id: string; token: string } {
    const source = this.state.interactions.get(input.interactionId);
    if (!source?.modal) return fail(`interaction ${input.interactionId} was not answered with a modal`);
    if (source.submittedBy) fail(`the modal of ${input.interactionId} was already submitted`);
    if (source.user.id !== apiUser(input.user).id) fail(`the modal of ${input.interactionId} is another user's`);
    const data = modalSubmitData(source.modal, input.values);
    const m = source.messageId ? this.state.messages.get(source.messageId) : undefined;
    const submitted = this.interaction(
      5,
      source.channelId,
      input.user,
      undefined,
      { data, ...(m && !m.deleted ? { message: this.state.toApi(m) } : {}) },
      m && !m.deleted ? m.id : undefined,
    );
    source.submittedBy = submitted.id;
    return submitted;
  }

  slashCommand(input: SlashCommandInput): { id: string; token: string } {
    const ch = this.state.channels.get(input.channelId) ?? fail(`unknown channel ${input.channelId}`);
    const scopes = ch.type === 1 ? ['global'] : [this.state.guild.id, 'global'];
    const cmd =
      scopes.flatMap((k) => this.state.commands.get(k) ?? []).find((c) => c.name === input.name) ??
      fail(`/${input.name} is not registered (PUT /applications/:app/commands first)`);
    const given = input.options ?? {};
    const options = Object.entries(given).map(([name, value]) => {
      const def = cmd.options.find((o: Json) => o.name === name) ?? fail(`/${cmd.name} has no option "${name}"`);
      return { name, type: def.type, value };
    });
    for (const def of cmd.options)
      if (def.required && !(def.name in given)) fail(`/${cmd.name} needs option "${def.name}"`);
    return this.interaction(2, ch.id, input.user, undefined, {
      data: { id: cmd.id, name: cmd.name, type: 1, options, ...(cmd.guild_id ? { guild_id: cmd.guild_id } : {}) },
    });
  }

  private interaction(
    type: 2 | 3 | 5,
    channelId: string,
    who: UserInput,
    guild: boolean | undefined,
    extra: Json,
    messageId?: string,
  ) {
    const { state } = this;
    const user = this.user(who);
    const ch = this.channel(channelId, guild, user);
    const dm = ch.type === 1;
    const id = snowflake();
    const token = interactionToken();
    const owners: Record<string, string> = dm ? { 1: user.id } : { 0: state.guild.id };
    state.interactions.set(id, {
      id,
      token,
      type,
      channelId,
      createdAt: Date.now(),
      user,
      owners,
      messageId,
      callbacks: [],
      originalEdits: [],
      followUps: [],
    });
    const d = {
      id,
      application_id: state.appId,
      type,
      token,
      version: 1,
      app_permissions: PERMISSIONS,
      locale: 'en-US',
      entitlements: [],
      attachment_size_limit: 10_485_760,
      channel_id: channelId,
      channel: ch,
      authorizing_integration_owners: owners,
      context: dm ? 1 : 0,
      ...(dm
        ? { user }
        : {
            guild_id: state.guild.id,
            guild_locale: 'en-US',
            guild: { id: state.guild.id, locale: 'en-US', features: [] },
            member: { ...this.member(), user, permissions: PERMISSIONS },
          }),
      ...extra,
    };
    this.gateway.dispatch('INTERACTION_CREATE', () => d); // interactions need no intent
    return { id, token };
  }

  private user(u: UserInput): ApiUser {
    const api = apiUser(u);
    this.state.users.set(api.id, api);
    return api;
  }

  private member(): Json {
    return {
      roles: [],
      joined_at: this.state.startedAt,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      nick: null,
      avatar: null,
      premium_since: null,
    };
  }

  private channel(id: string, guild: boolean | undefined, user: ApiUser, threadParent?: string): Json {
    const { state } = this;
    let ch = state.channels.get(id);
    if (!ch && threadParent) {
      if (state.channels.get(threadParent)?.type !== 0)
        fail(`thread parent ${threadParent} is not a guild text channel`);
      ch = guildChannel(
        state.guild.id,
        { id, name: `thread-${id}`, type: 11, parent_id: threadParent },
        user.id,
        new Date().toISOString(),
      );
      state.channels.set(id, ch);
      const created = { ...ch, newly_created: true };
      this.gateway.dispatch('THREAD_CREATE', (intents) => (intents & Intents.Guilds ? created : null));
    }
    if (!ch && guild === false) ch = state.dmChannel(id, user);
    if (!ch) return fail(`unknown channel ${id}`);
    if (guild !== undefined && guild === (ch.type === 1))
      fail(`channel ${id} is ${ch.type === 1 ? 'a DM' : 'a guild channel'}`);
    return ch;
  }
}
