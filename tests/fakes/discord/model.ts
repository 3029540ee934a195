// Discord object shapes the fake hands out, and the in-memory state both REST and the gateway share.
// Shapes follow discord-api-types v10 closely enough for discord.js 14 to build its structures.
import { randomBytes } from 'node:crypto';
import type { Json } from './call-log.ts';

const DISCORD_EPOCH = 1420070400000n;
let increment = 0n;
/** Real-looking snowflakes: discord.js derives createdTimestamp from the id. */
export function snowflake(): string {
  increment = (increment + 1n) & 0xfffn;
  return String(((BigInt(Date.now()) - DISCORD_EPOCH) << 22n) | increment);
}
export const interactionToken = (): string => `aW50ZXJhY3Rpb24${randomBytes(48).toString('base64url')}`;

export const Intents = { Guilds: 1 << 0, GuildMessages: 1 << 9, DirectMessages: 1 << 12, MessageContent: 1 << 15 };
export const ChannelType = { GuildText: 0, DM: 1, PublicThread: 11 } as const;

export interface UserInput {
  id: string;
  username: string;
  global_name?: string;
  bot?: boolean;
}
export interface ApiUser {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: null;
  bot?: boolean;
}
export const apiUser = (u: UserInput): ApiUser => ({
  id: u.id,
  username: u.username,
  discriminator: '0',
  global_name: u.global_name ?? u.username,
  avatar: null,
  ...(u.bot ? { bot: true } : {}),
});

export interface ChannelSpec {
  id: string;
  name: string;
  type?: 0 | 11;
  parent_id?: string;
}
export interface GuildSpec {
  id: string;
  name: string;
  channels: ChannelSpec[];
}
export const defaultGuild = (): GuildSpec => ({
  id: '1100000000000000001',
  name: 'Kazma Test',
  channels: [
    { id: '1200000000000000001', name: 'general' },
    { id: '1200000000000000002', name: 'random' },
    { id: '1200000000000000011', name: 'approvals-thread', type: 11, parent_id: '1200000000000000001' },
  ],
});

/** A stored message; `edits` lists every applied edit in order (the new values, with a timestamp). */
export interface StoredMessage {
  id: string;
  channel_id: string;
  author: ApiUser;
  content: string;
  type: number;
  flags: number;
  components: Json[];
  embeds: Json[];
  attachments: Json[];
  mentions: ApiUser[];
  message_reference?: Json;
  interaction_metadata?: Json;
  webhook_id?: string;
  timestamp: string;
  edited_timestamp: string | null;
  edits: Array<{ at: number; content?: string; components?: Json[]; embeds?: Json[] }>;
  deleted: boolean;
  /** Uploaded file bytes (not part of the API object; `attachments` describes them). */
  files: Array<{ name: string; type: string; data: Buffer }>;
}

/** An interaction as the fake saw it answered: callbacks, the @original message and its edits, follow-ups. */
export interface InteractionRecord {
  id: string;
  token: string;
  /** 2 APPLICATION_COMMAND, 3 MESSAGE_COMPONENT, 5 MODAL_SUBMIT. */
  type: 2 | 3 | 5;
  channelId: string;
  createdAt: number;
  user: ApiUser;
  /** `authorizing_integration_owners` as dispatched; response messages repeat it in interaction_metadata. */
  owners: Record<string, string>;
  /** For buttons: the message the button sits on (what types 6/7 and later @original edits change). */
  messageId?: string;
  callbacks: Array<{ type: number; data: Json; at: number }>;
  /** Type 4/5 response message, or (types 6/7) the component's message. */
  originalId?: string;
  originalEdits: Array<{ body: Json; at: number }>;
  followUps: StoredMessage[];
  /** The modal this interaction was answered with (type 9), open until submitted. */
  modal?: Json;
  /** The MODAL_SUBMIT interaction that submitted {@link modal}. */
  submittedBy?: string;
}

export class FakeState {
  readonly channels = new Map<string, Json>();
  readonly messages = new Map<string, StoredMessage>();
  readonly order = new Map<string, string[]>();
  readonly interactions = new Map<string, InteractionRecord>();
  readonly commands = new Map<string, Json[]>();
  readonly members: Json[] = [];
  readonly users = new Map<string, ApiUser>();
  readonly startedAt = new Date().toISOString();
  /** Where attachments are served: Discord's CDN, or the fake itself once it listens. */
  cdnBase = 'https://cdn.discordapp.com';
  /** Every request for an attachment's bytes from the fake's CDN, in order. */
  readonly downloads: Array<{ path: string; status: number }> = [];

  constructor(
    readonly token: string,
    readonly bot: ApiUser,
    readonly appId: string,
    readonly guild: GuildSpec,
  ) {
    for (const c of guild.channels) this.channels.set(c.id, guildChannel(guild.id, c, bot.id, this.startedAt));
    this.members.push({ user: bot, roles: [], joined_at: this.startedAt, deaf: false, mute: false, flags: 0 });
  }

  isDm(channelId: string): boolean {
    return this.channels.get(channelId)?.type === ChannelType.DM;
  }

  dmChannel(id: string, recipient: ApiUser): Json {
    const existing = this.channels.get(id);
    if (existing) return existing;
    const ch = { id, type: ChannelType.DM, last_message_id: null, flags: 0, recipients: [recipient] };
    this.channels.set(id, ch);
    return ch;
  }

  /** Stores a message; ephemeral ones (flags & 64) are kept by id but never listed in the channel. */
  store(m: StoredMessage): StoredMessage {
    this.messages.set(m.id, m);
    if ((m.flags & 64) === 0) {
      this.order.set(m.channel_id, [...(this.order.get(m.channel_id) ?? []), m.id]);
      const ch = this.channels.get(m.channel_id);
      if (ch) ch.last_message_id = m.id;
    }
    return m;
  }

  listed(channelId: string): StoredMessage[] {
    return (this.order.get(channelId) ?? []).map((id) => this.messages.get(id)!).filter((m) => m !== undefined);
  }

  newMessage(channelId: string, author: ApiUser, body: Json, extra: Partial<StoredMessage> = {}): StoredMessage {
    const files: StoredMessage['files'] = body._files ?? [];
    const attachments = files.map((f) => {
      const id = snowflake();
      // Signed and expiring, like the real CDN's (ex: expiry, is: issued, hm: the signature).
      const url =
        `${this.cdnBase}/attachments/${channelId}/${id}/${encodeURIComponent(f.name)}` +
        `?ex=${(Math.floor(Date.now() / 1000) + 86_400).toString(16)}&is=0&hm=${id.slice(-8)}`;
      return { id, filename: f.name, size: f.data.length, content_type: f.type || undefined, url, proxy_url: url };
    });
    return {
      id: snowflake(),
      channel_id: channelId,
      author,
      content: body.content ?? '',
      type: 0,
      flags: body.flags ?? 0,
      components: body.components ?? [],
      embeds: body.embeds ?? [],
      attachments,
      mentions: [],
      files,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      edits: [],
      deleted: false,
      ...extra,
    };
  }

  /** Applies an edit body (only the fields it carries) and remembers it in `edits`. */
  edit(m: StoredMessage, body: Json): StoredMessage {
    const e: StoredMessage['edits'][number] = { at: Date.now() };
    if (body.content !== undefined) m.content = e.content = body.content ?? '';
    if (body.components !== undefined) m.components = e.components = body.components ?? [];
    if (body.embeds !== undefined) m.embeds = e.embeds = body.embeds ?? [];
    m.flags &= ~128; // a deferred ("thinking…") response stops loading once edited
    m.edited_timestamp = new Date().toISOString();
    m.edits.push(e);
    return m;
  }

  /** The REST/gateway form of a stored message (discord.js needs every array present). */
  toApi(m: StoredMessage, nested = false): Json {
    const { edits: _edits, deleted: _deleted, files: _files, ...rest } = m;
    const ref = m.message_reference ? this.messages.get(m.message_reference.message_id) : undefined;
    return {
      ...rest,
      tts: false,
      mention_everyone: false,
      mention_roles: [],
      pinned: false,
      ...(this.isDm(m.channel_id) ? {} : { guild_id: this.guild.id }),
      ...(ref && !nested ? { referenced_message: this.toApi(ref, true) } : {}),
    };
  }

  guildCreate(): Json {
    const all = [...this.channels.values()].filter((c) => c.guild_id === this.guild.id);
    return {
      id: this.guild.id,
      name: this.guild.name,
      icon: null,
      splash: null,
      discovery_splash: null,
      banner: null,
      owner_id: '1000000000000000099',
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      mfa_level: 0,
      nsfw_level: 0,
      premium_tier: 0,
      features: [],
      emojis: [],
      stickers: [],
      application_id: null,
      system_channel_id: null,
      system_channel_flags: 0,
      rules_channel_id: null,
      public_updates_channel_id: null,
      safety_alerts_channel_id: null,
      vanity_url_code: null,
      description: null,
      preferred_locale: 'en-US',
      premium_progress_bar_enabled: false,
      roles: [
        {
          id: this.guild.id,
          name: '@everyone',
          color: 0,
          hoist: false,
          icon: null,
          unicode_emoji: null,
          position: 0,
          permissions: '1071698660929',
          managed: false,
          mentionable: false,
          flags: 0,
        },
      ],
      joined_at: this.startedAt,
      large: false,
      unavailable: false,
      member_count: this.members.length,
      members: this.members,
      voice_states: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
      channels: all.filter((c) => c.type !== ChannelType.PublicThread),
      threads: all.filter((c) => c.type === ChannelType.PublicThread),
    };
  }
}

export function guildChannel(guildId: string, c: ChannelSpec, ownerId: string, at: string): Json {
  const base = { id: c.id, guild_id: guildId, name: c.name, last_message_id: null, rate_limit_per_user: 0, flags: 0 };
  if (c.type === ChannelType.PublicThread) {
    return {
      ...base,
      type: 11,
      parent_id: c.parent_id,
      owner_id: ownerId,
      message_count: 0,
      member_count: 1,
      thread_metadata: {
        archived: false,
        auto_archive_duration: 1440,
        archive_timestamp: at,
        locked: false,
        create_timestamp: at,
      },
    };
  }
  return { ...base, type: 0, position: 0, permission_overwrites: [], parent_id: null, topic: null, nsfw: false };
}
