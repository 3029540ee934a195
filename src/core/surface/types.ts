// The Surface port: what the core sends and receives, with no platform in it. Adapters translate.
import type { ChatRef } from './ref.ts';
import type { SendProgress } from './send-progress.ts';

/** A person (or bot) on a platform. `id` is the platform's stable user id, never a display name. */
export interface Actor {
  platform: string;
  id: string;
  /** For messages and cards ("approved by maya"); may change, never used for access. */
  displayName?: string;
}

interface EventBase {
  /** The platform's own id for this delivery (update_id, event_id, interaction id); dedupe key. */
  eventId: string;
  platform: string;
  chat: ChatRef;
  actor: Actor;
  /** Set by an adapter that can tell the bot's own messages apart; they are dropped. */
  fromSelf?: boolean;
  /**
   * The chat is a one-to-one conversation with the bot (a Telegram private chat, a Slack DM, a Discord DM):
   * where a stranger may be given a pairing code (`access.pairing`) and a first message is welcomed.
   */
  direct?: boolean;
}

/**
 * A file sent with a message, by reference only: the inbox row stays small, and a turn taken up again after
 * a crash reads the bytes kept when it first downloaded them (core/media). `ref` is the adapter's own (a
 * Telegram file_id, a Slack file id, a Discord URL).
 */
export interface Attachment {
  /** `audio`: a voice message or an audio file, transcribed (core/media). */
  kind: 'image' | 'document' | 'audio';
  ref: string;
  name?: string;
  /** The type the platform or the sender declared; the bytes are checked, never trusted to match. */
  mime?: string;
  /** The size the platform declared, in bytes: checked before anything is downloaded. */
  size?: number;
}

/** An attachment's bytes as its platform serves them, read with the platform's own credentials. */
export interface AttachmentDownload {
  /** The size the download declares (Content-Length), when it does. */
  size?: number;
  body: AsyncIterable<Uint8Array>;
}

/** Someone wrote text. A leading `/name` is parsed into a command by the pipeline, once. */
export interface InboundMessage extends EventBase {
  kind: 'message';
  /** The text, or a file's caption (empty for a file sent without one). */
  text: string;
  attachments?: Attachment[];
}

/** A platform-native command (Telegram bot command, Slack slash command, Discord slash command). */
export interface InboundCommand extends EventBase {
  kind: 'command';
  name: string;
  args: string[];
  /**
   * Answer only the actor (through {@link Surface.replyPrivately}), as platform slash commands expect:
   * Slack's `/kazma status` answers ephemerally. Default false: answers go to the chat.
   */
  answerPrivately?: boolean;
}

/** A tap on a card button; `actionId` is the button's `id` as the core created it. */
export interface InboundAction extends EventBase {
  kind: 'action';
  actionId: string;
  /** The card's message, when the platform says which one was tapped. */
  message?: MessageRef;
  /**
   * What the person typed in the form an {@link CardButton.asksReason} button opened (a Slack or Discord modal):
   * the reason of a Deny. Absent for a plain tap.
   */
  reason?: string;
}

/** Everything an adapter hands the core. */
export type InboundEvent = InboundMessage | InboundCommand | InboundAction;

/** An outbound message: canonical Markdown; each adapter converts to its dialect and splits it. */
export interface Message {
  /** The text; with a file, its caption (may be empty). */
  text: string;
  /** A file to upload with the text (`send_file`): only to a surface with {@link Surface.fileLimit}. */
  file?: OutboundFile;
}

/**
 * A file Kazma sends: a copy taken when the tool ran, kept under `data_dir/files` by its SHA-256, so every
 * attempt at the send (after a crash too) uploads exactly the bytes that were checked and approved.
 */
export interface OutboundFile {
  name: string;
  /** The kept copy's absolute path. */
  path: string;
  size: number;
  sha256: string;
}

/** A button on a card. `id` comes back as {@link InboundAction.actionId}; keep it under 64 bytes. */
export interface CardButton {
  id: string;
  label: string;
  style: 'primary' | 'secondary' | 'danger';
  /** Offered only on a card that shows every `whole` field in full (Approve, Always): see {@link fitCard}. */
  needsWhole?: boolean;
  /**
   * A tap must say why (a Deny under `deny_reason: required`): a platform with forms asks for the reason at the
   * tap (a Slack or Discord modal, {@link reasonButtonId}) and sends it as {@link InboundAction.reason}. A platform
   * without one sends the plain tap, and the core asks (Telegram: a force-reply prompt).
   */
  asksReason?: boolean;
}

/** A labelled value on a card. */
export interface CardField {
  label: string;
  value: string;
  /**
   * What the decision is about (a tool's arguments): never cut silently. Where a platform cannot show it
   * all, {@link fitCard} shows what fits with a count of the rest, and the card loses its `needsWhole`
   * buttons and offers `showAll`.
   */
  whole?: boolean;
}

/**
 * A platform-neutral card: a title, labelled fields, buttons, and a footer for its final state
 * ("Approved once by maya"). A settled card is edited to one without buttons.
 */
export interface Card {
  title: string;
  fields: CardField[];
  buttons: CardButton[];
  footer?: string;
  /** Offered in place of the `needsWhole` buttons when a `whole` field is cut: sends it in full, privately. */
  showAll?: CardButton;
}

/** Where a sent message lives, to edit it later. `id` is the adapter's own encoding. */
export interface MessageRef {
  chat: ChatRef;
  id: string;
  /**
   * A draft preview with no message behind it (Telegram's sendMessageDraft, gone in ~30 s): nothing to edit
   * after a crash, so no record of it is kept.
   */
  preview?: true;
  /**
   * A message the platform still grows as a stream (Slack's chat streaming API): the adapter ends the stream
   * before it edits the message, after a crash too (the flag is recorded with the draft).
   */
  stream?: true;
  /**
   * The key of the record a streamed draft's first message was reserved under before it was posted
   * (core/outbox DraftRecords), so its record is found by the message.
   */
  draft?: string;
}

/** How a card goes out: {@link SendProgress.key} and {@link SendProgress.again}, for a card. */
export interface CardPost {
  key?: string;
  again?: boolean;
}

/** An answer as far as the model has written it (streaming, {@link Surface.showDraft}). */
export interface PartialAnswer {
  /** Markdown to render: what the cut left open (a code fence, a bold word) is closed (closePartial). */
  text: string;
  /** The words exactly as written so far: a surface that prints as it goes (a terminal) adds to them. */
  written: string;
  /** Whom the answer is for: a platform that shows a stream to one person (Slack in a channel) names them. */
  recipient?: Actor;
  /**
   * The delivery key the draft's first message is posted under, as {@link SendProgress.key} (part 0): a
   * platform that knows a post by its key (Slack's metadata, Discord's nonce) finds it again after a crash.
   */
  key?: string;
}

/** Options for {@link Surface.replyPrivately}. */
export interface PrivateReplyOptions {
  whole?: boolean;
  /**
   * The text asks the person why they deny this gate (a policy's `deny_reason: required`): a platform that can
   * offers a reply field (Telegram: a force-reply prompt) whose answer comes back as `/deny <gate> <reason>`.
   */
  askReason?: { gateId: string };
}

/**
 * What each adapter implements. The required part is small; `replyPrivately` is an optional
 * capability the core checks for (Slack ephemeral messages, Discord ephemeral replies).
 */
export interface Surface {
  /** The ChatRef prefix this surface serves, e.g. `telegram`. */
  readonly platform: string;
  /**
   * Sends a message, in as many parts as the platform's limit needs (see {@link sendInParts}); with
   * `progress`, a retry goes on from the first part not yet delivered. Returns the first part's reference.
   */
  send(chat: ChatRef, message: Message, progress?: SendProgress): Promise<MessageRef>;
  /** Posts a card; `key` and `again` as {@link SendProgress}'s (a card is one part). */
  sendCard(chat: ChatRef, card: Card, options?: CardPost): Promise<MessageRef>;
  editCard(ref: MessageRef, card: Card): Promise<void>;
  /**
   * Shows a reply while the model writes it: posts the partial answer (with `draft` undefined) or edits
   * the draft's messages into it, split as {@link send} splits (showInParts): once it outgrows a message,
   * the next part is posted. Returns the messages showing it, in order. The final answer replaces them
   * through {@link send}'s `progress.draft`. An optional capability (streaming); a surface without it
   * shows "typing…" until the answer lands.
   */
  showDraft?(chat: ChatRef, partial: PartialAnswer, draft?: readonly MessageRef[]): Promise<MessageRef[]>;
  /**
   * True when a new draft in `chat` is shown as a preview, no message behind it (MessageRef.preview): it
   * needs no record reserved (PartialAnswer.key). Such a draft refused as a preview is not posted as a
   * message in its place: showDraft rejects, and the next draft, no longer a preview, is posted under a
   * reserved key. Absent: never.
   */
  previews?(chat: ChatRef): boolean;
  /** Shows "typing…" where the platform has it; a no-op elsewhere. */
  typing(chat: ChatRef): Promise<void>;
  /**
   * Text only `actor` sees in `chat` (e.g. "already approved by maya"). With `whole`, every character of
   * it, in as many parts as it takes (a card's Show all): never a short alert that cuts it.
   */
  replyPrivately?(chat: ChatRef, actor: Actor, text: string, options?: PrivateReplyOptions): Promise<void>;
  /**
   * Opens an attachment of an event this surface made, with the platform's credentials (they never leave the
   * adapter). `signal` aborts the download. Optional: a surface without it gets no files.
   */
  openAttachment?(attachment: Attachment, signal: AbortSignal): Promise<AttachmentDownload>;
  /**
   * The largest file this surface uploads, in bytes (the platform's own limit for a bot): a surface with it
   * sends a {@link Message.file} with its text as the caption. Absent: it sends no files.
   */
  readonly fileLimit?: number;
}
