import { type ChatRef, ellipsis, type OutboundFile } from '../surface/index.ts';
import type { Question, Questions } from '../decisions/index.ts';
import type { ReplyOutbox } from '../outbox/index.ts';
import type { ToolContext } from '../tools/index.ts';
import { maskText } from '../secrets/index.ts';
import { keepFile, postFile } from './send-file.ts';
import { postOnce } from './send-message.ts';
import type { KnownTarget } from './targets.ts';

/** The question kind of clarify cards (`decisions/questions.ts`). */
export const CLARIFY_QUESTION = 'clarify';

/** What a clarify card about a message carries, kept on the question row. */
interface ClarifySubject {
  text: string;
  /** `send_file`'s file, kept when the card was asked: the pick sends exactly it. */
  file?: OutboundFile;
  asked: string;
  targets: Record<string, ChatRef>;
  /** Who asked for the message: the pick is decided like an approval of it (decisions/questions.ts requesterOf). */
  requester?: { platform: string; id: string };
}

/** Options for {@link Clarifier}. */
export interface ClarifierOptions {
  questions: Questions;
  replies: ReplyOutbox;
  /** Chats that get the card besides the one the request came from (`approvals.channels`). */
  channels: readonly ChatRef[];
  /** `data_dir/files`: where a file asked about is kept until it is sent. */
  filesDir: string;
}

/**
 * Clarify cards for `send_message`: when the target is not one Kazma may post to, it asks which was
 * meant — one button per known target, plus Cancel — as a question of its own kind, shared across
 * platforms (first decision wins, every card edited). The winning answer posts the message once.
 */
export class Clarifier {
  readonly #o: ClarifierOptions;

  constructor(options: ClarifierOptions) {
    this.#o = options;
    options.questions.onDecided(CLARIFY_QUESTION, (question) => this.#decided(question));
  }

  /** Posts the card; returns what the model is told. Runs as the call's effect (once, under its receipt). */
  async ask(
    input: { to: string; text: string; known: readonly KnownTarget[]; path?: string },
    ctx: ToolContext,
  ): Promise<string> {
    const text = maskText(input.text, ctx.secrets);
    const file = input.path === undefined ? undefined : await keepFile(this.#o.filesDir, input.path, ctx);
    const targets = Object.fromEntries(input.known.map((k, i) => [`t${i}`, k.chat]));
    const origin = ctx.turn?.chat.startsWith('thread:') ? undefined : (ctx.turn?.chat as ChatRef | undefined);
    const destinations = [...(origin ? [origin] : []), ...this.#o.channels];
    if (destinations.length === 0)
      return `not sent: "${input.to}" is not an allowed target and there is nobody to ask which one was meant`;
    const requester = ctx.turn?.requester;
    const subject: ClarifySubject = {
      text,
      ...(file && { file }),
      asked: input.to,
      targets,
      ...(requester && { requester: { platform: requester.platform, id: requester.id } }),
    };
    await this.#o.questions.ask({
      kind: CLARIFY_QUESTION,
      title: `Where should this message go? "${input.to}" is not an allowed target.`,
      fields: file
        ? [{ label: 'File', value: `${file.name} (${file.size} bytes)${text ? `: ${ellipsis(text, 200)}` : ''}` }]
        : [{ label: 'Message', value: ellipsis(text, 301) }],
      options: [
        ...input.known.map((k, i) => ({ id: `t${i}`, label: k.label, style: 'primary' as const })),
        { id: 'cancel', label: 'Cancel', style: 'secondary' as const },
      ],
      ...(origin && { chat: origin }),
      destinations,
      subject,
    });
    return (
      `not sent yet: "${input.to}" is not an allowed target, so Kazma asked which target was meant. ` +
      'The message is posted once someone picks one; do not send it again.'
    );
  }

  async #decided(question: Question): Promise<void> {
    const subject = question.subject as ClarifySubject;
    const chat = question.decision ? subject.targets[question.decision] : undefined;
    // Keyed by the question: it runs again when a stop or a failure left the decision's effect owed
    // (decisions/decided-effects.ts); however often it runs, the chosen chat gets the message once.
    if (!chat) return;
    if (subject.file) await postFile(this.#o.replies, chat, subject.text, subject.file, `clarify_${question.id}`);
    else await postOnce(this.#o.replies, chat, subject.text, `clarify_${question.id}`);
  }
}
