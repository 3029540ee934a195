import type { Actor, ChatRef } from '../surface/index.ts';
import type { ChatCommand, StatusSection } from '../commands/index.ts';
import type { CompactOutcome } from './runner/compact.ts';
import type { StopOutcome } from './runner/running-turns.ts';

/** What the agent's commands use of the agent module. */
export interface AgentCommandsPort {
  /** Supersedes the chat's pending question and moves it to a fresh thread; returns the thread id. */
  startNewThread(chat: ChatRef): Promise<string>;
  currentThread(chat: ChatRef): Promise<string>;
  /** Model labels in the order tried in `chat` (`/config model` may put another first); empty: none configured. */
  models(chat: ChatRef): string[];
  /** The operators' house instructions for `chat` (`/config prompt`); empty: none. */
  instructions(chat: ChatRef): readonly string[];
  /** Summarises the chat's older turns into one message (Compactor). */
  compact(chat: ChatRef): Promise<CompactOutcome>;
  /** Stops the chat's running turn, when `may` allows it for the turn's requester (RunningTurns.stop). */
  /** `unconfirmed`: the turn runs in another process, which did not answer the request to stop it. */
  stop(chat: ChatRef, may: (requester: Actor) => boolean): Promise<StopOutcome | 'unconfirmed'>;
}

/** `/new`: a fresh conversation for this chat (the old thread stays stored, unused). */
export function newCommand(port: AgentCommandsPort): ChatCommand {
  return {
    name: 'new',
    summary: 'start a fresh conversation in this chat',
    async run(ctx) {
      const thread = await port.startNewThread(ctx.chat);
      await ctx.reply(`Started a new conversation (thread ${thread}). Earlier messages are forgotten here.`);
    },
  };
}

/** `/compact`: the older turns of this chat's conversation become one summary (the originals are archived). */
export function compactCommand(port: AgentCommandsPort): ChatCommand {
  return {
    name: 'compact',
    summary: 'summarise older turns of this conversation into one message',
    async run(ctx) {
      await ctx.reply(compactReply(await port.compact(ctx.chat)));
    },
  };
}

/**
 * `/stop`: ends the chat's running turn now, by its requester or an operator. It does not wait in the
 * chat's queue (the turn it stops holds the queue's place); the turn itself says "⏹ Stopped." where its
 * answer was being written, and the message queued next runs.
 */
export function stopCommand(port: AgentCommandsPort): ChatCommand {
  return {
    name: 'stop',
    summary: 'end the turn running in this chat now',
    serial: false,
    async run(ctx) {
      const mine = (requester: Actor) => requester.platform === ctx.actor.platform && requester.id === ctx.actor.id;
      const outcome = await port.stop(ctx.chat, (requester) => ctx.role === 'operator' || mine(requester));
      if (outcome === 'nothing') await ctx.reply('Nothing is running in this chat, so there is nothing to stop.');
      else if (outcome === 'refused') await ctx.reply('Only the one who asked, or an operator, may stop this turn.');
      else if (outcome === 'unconfirmed')
        await ctx.reply(
          'The turn runs in another Kazma process, which did not answer the request to stop it. ' +
            'If it goes on, send /stop again.',
        );
    },
  };
}

/** What /compact answers for each outcome. */
function compactReply(outcome: CompactOutcome): string {
  switch (outcome.status) {
    case 'compacted':
      return (
        `Compacted ${outcome.messages} message${outcome.messages === 1 ? '' : 's'} into a summary; the latest ` +
        `turn is kept as it was.`
      );
    case 'nothing':
      return 'Nothing to compact yet: this conversation has only its latest turn.';
    case 'busy':
      return 'A turn is still running or waiting for an approval here; try /compact once it has ended.';
    case 'no_model':
      return 'No model is configured, so nothing can be summarised. Set model.name in kazma.yaml.';
    case 'failed':
      return `⚠️ Nothing was compacted: the summary failed (${outcome.reason}). The conversation is unchanged.`;
  }
}

/** The model and thread lines of /status. */
export function agentStatus(port: AgentCommandsPort): StatusSection {
  return {
    name: 'agent',
    async lines(chat) {
      const [primary, ...fallbacks] = port.models(chat);
      const model = primary
        ? `${primary}${fallbacks.length > 0 ? ` (fallbacks: ${fallbacks.join(', ')})` : ''}`
        : 'not configured (set model.name and model.api_key or model.base_url in kazma.yaml)';
      const house = port.instructions(chat);
      return [
        `model: ${model}`,
        ...(house.length > 0 ? [`house instructions: ${house.join(' · ')} (see /config prompt)`] : []),
        `thread: ${await port.currentThread(chat)}`,
      ];
    },
  };
}
