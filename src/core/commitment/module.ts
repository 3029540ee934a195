import { join } from 'node:path';
import type { ChatRef, SurfaceRegistry } from '../surface/index.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Questions } from '../decisions/index.ts';
import type { ReplyOutbox } from '../outbox/index.ts';
import { type ToolDefinition, createGuardList, type AuthorizeEffect, type Guard } from '../tools/index.ts';
import { createAuthorizeEffect } from './authorize.ts';
import { Clarifier } from './clarify.ts';
import { commitmentGuard } from './protected.ts';
import { sendFileTool } from './send-file.ts';
import { sendMessageTool } from './send-message.ts';

/** What {@link createCommitment} needs. */
export interface CommitmentDeps {
  loaded: LoadedConfig;
  questions: Questions;
  replies: ReplyOutbox;
  surfaces: Pick<SurfaceRegistry, 'for'>;
  /** The other guards of the list (the web module's `egress`). */
  egress?: Guard;
}

/** The commitment module: `send_message`, `send_file`, and authorizeEffect for the tool registry. */
export interface CommitmentModule {
  tools: ToolDefinition[];
  authorize: AuthorizeEffect;
}

/** Builds the guard list with the commitment guard in its place, authorizeEffect around it, and `send_message`. */
export function createCommitment({ loaded, questions, replies, surfaces, egress }: CommitmentDeps): CommitmentModule {
  const { outbound, approvals } = loaded.config;
  const filesDir = join(loaded.config.data_dir, 'files');
  const clarifier = new Clarifier({ questions, replies, channels: approvals.channels as ChatRef[], filesDir });
  const aliases = Object.keys(outbound.targets);
  const guards = createGuardList({ commitment: commitmentGuard, ...(egress && { egress }) });
  return {
    tools: [sendMessageTool({ replies, aliases }), sendFileTool({ replies, surfaces, filesDir, aliases })],
    authorize: createAuthorizeEffect({ guards, outbound, clarifier }),
  };
}
