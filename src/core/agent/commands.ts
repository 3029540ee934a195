import type { ChatRef } from '../chat/ref.ts';
import type { ChatCommand, StatusSection } from '../commands/registry.ts';

/** What the agent's commands use of the agent module. */
export interface AgentCommandsPort {
  /** Supersedes the chat's pending question and moves it to a fresh thread; returns the thread id. */
  startNewThread(chat: ChatRef): Promise<string>;
  currentThread(chat: ChatRef): Promise<string>;
  /** Model labels in the order tried; empty when none is configured. */
  models(): string[];
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

/** The model and thread lines of /status. */
export function agentStatus(port: AgentCommandsPort): StatusSection {
  return {
    name: 'agent',
    async lines(chat) {
      const [primary, ...fallbacks] = port.models();
      const model = primary
        ? `${primary}${fallbacks.length > 0 ? ` (fallbacks: ${fallbacks.join(', ')})` : ''}`
        : 'not configured (set model.name and model.api_key or model.base_url in kazma.yaml)';
      return [`model: ${model}`, `thread: ${await port.currentThread(chat)}`];
    },
  };
}
