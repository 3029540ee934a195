import type { ChatRef } from '../surface/index.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Questions } from '../decisions/index.ts';
import type { ReplyOutbox } from '../outbox/index.ts';
import { type ToolDefinition, createGuardList, type AuthorizeEffect, type Guard } from '../tools/index.ts';
import { createAuthorizeEffect } from './authorize.ts';
import { Clarifier } from './clarify.ts';
import { commitmentGuard } from './protected.ts';
import { sendMessageTool } from './send-message.ts';

/** What {@link createCommitment} needs. */
export interface CommitmentDeps {
  loaded: LoadedConfig;
  questions: Questions;
  replies: ReplyOutbox;
  /** The other guards of the list (the web module's `egress`). */
  egress?: Guard;
}

/** The commitment module: `send_message`, and authorizeEffect for the tool registry. */
export interface CommitmentModule {
  tools: ToolDefinition[];
  authorize: AuthorizeEffect;
}

/** Builds the guard list with the commitment guard in its place, authorizeEffect around it, and `send_message`. */
export function createCommitment({ loaded, questions, replies, egress }: CommitmentDeps): CommitmentModule {
  const { outbound, approvals } = loaded.config;
  const clarifier = new Clarifier({ questions, replies, channels: approvals.channels as ChatRef[] });
  const guards = createGuardList({ commitment: commitmentGuard, ...(egress && { egress }) });
  return {
    tools: [sendMessageTool({ replies, aliases: Object.keys(outbound.targets) })],
    authorize: createAuthorizeEffect({ guards, outbound, clarifier }),
  };
}
