// `send_file` (write: asks first; effects): uploads a workspace file to this chat, or to another under the
// rules of `send_message` (targets, allowlist, clarify card). The path is confined to the workspace as
// `read_file`'s is — resolveInWorkspace, then openInWorkspace (no `../`, no link out, no swap after the
// check). The bytes are copied, when the call runs, to `data_dir/files/<sha256>`: the outbox row names
// that copy, so every attempt at the upload (after a crash too) sends exactly the bytes approved, once.
import { constants } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { RefusedBeforeEffect } from '../effects/index.ts';
import { keepBytes } from '../media/index.ts';
import type { ReplyOutbox } from '../outbox/index.ts';
import { maskText } from '../secrets/index.ts';
import { type ChatRef, isChatRef, type OutboundFile, type SurfaceRegistry } from '../surface/index.ts';
import { defineTool, openInWorkspace, resolveInWorkspace, type ToolContext, workspaceRoot } from '../tools/index.ts';

/** The tool's name; the commitment check decides its target when it names one. */
export const SEND_FILE = 'send_file';

/** What {@link sendFileTool} needs. */
export interface SendFileOptions {
  replies: ReplyOutbox;
  surfaces: Pick<SurfaceRegistry, 'for'>;
  /** `data_dir/files`: where the copies sent are kept. */
  filesDir: string;
  aliases: readonly string[];
}

export function sendFileTool(options: SendFileOptions) {
  const aliases = options.aliases.length > 0 ? ` Known aliases: ${options.aliases.join(', ')}.` : '';
  return defineTool({
    name: SEND_FILE,
    description:
      'Send a file from the workspace as an attachment: to this chat, or with "to" to another chat such as ' +
      `"slack:C0123" or a configured alias.${aliases} A person approves each file.`,
    input: z.object({
      path: z.string().min(1).max(1000).describe('File path relative to the workspace'),
      caption: z.string().max(1000).optional().describe('Words sent with the file'),
      to: z.string().min(1).max(200).optional().describe('Chat ref or alias; omit for this chat'),
    }),
    tier: 'write',
    effects: true,
    outside: false,
    // Before any card: the path is the workspace's, the file a regular one, within the platform's limit.
    async precheck({ path, to }, ctx) {
      const chat = to ?? ctx.turn?.chat;
      const limit = chat && isChatRef(chat) ? limitOf(options.surfaces, chat) : undefined;
      const size = await fileSize(path, ctx);
      if (limit !== undefined && size > limit) throw new RefusedBeforeEffect(overLimit(path, size, limit, chat!));
    },
    async run({ path, caption, to }, ctx) {
      const here = ctx.turn?.chat;
      const chat = to ?? here;
      if (!chat || !isChatRef(chat)) throw new Error('this run has no chat to send to: name one with "to"');
      const limit = options.surfaces.for(chat).fileLimit;
      if (limit === undefined) throw new Error(`Kazma does not send files on ${chat.split(':')[0]}`);
      const file = await keepFile(options.filesDir, path, ctx, { limit, chat });
      await postFile(options.replies, chat, maskText(caption ?? '', ctx.secrets), file, `file_${randomUUID()}`);
      return `sent "${file.name}" (${file.size} bytes) to ${chat}`;
    },
  });
}

/** Posts a file through the outbox under `key`: the same key again finds its row and sends nothing new. */
export async function postFile(
  replies: ReplyOutbox,
  chat: ChatRef,
  text: string,
  file: OutboundFile,
  key: string,
): Promise<void> {
  await replies.deliver(chat, [{ key, text, file }]);
}

/**
 * Reads `path` inside the workspace (refused outside it, through a link, or when not a regular file), checks
 * it against `limit` (the platform's, named in the refusal), and keeps a copy under its SHA-256.
 */
export async function keepFile(
  filesDir: string,
  path: string,
  ctx: Pick<ToolContext, 'workspace'>,
  check?: { limit: number; chat: string },
): Promise<OutboundFile> {
  const root = workspaceRoot(ctx.workspace);
  const handle = await openInWorkspace(root, resolveInWorkspace(root, path), { flags: constants.O_RDONLY });
  let bytes: Buffer;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error(`"${path}" is not a regular file`);
    if (check && stats.size > check.limit) throw new Error(overLimit(path, stats.size, check.limit, check.chat));
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  const sha256 = await keepBytes(filesDir, bytes); // whole or absent: a crash mid-write leaves only a .part
  return { name: basename(path), path: join(filesDir, sha256), size: bytes.length, sha256 };
}

const overLimit = (path: string, size: number, limit: number, chat: string) =>
  `"${path}" is ${size} bytes, over the ${limit}-byte limit for a bot's upload to ${chat.split(':')[0]}; ` +
  'it was not sent';

/** The size of a regular file in the workspace, opened as `run` opens it (never through a link). */
async function fileSize(path: string, ctx: Pick<ToolContext, 'workspace'>): Promise<number> {
  const root = workspaceRoot(ctx.workspace);
  const handle = await openInWorkspace(root, resolveInWorkspace(root, path), { flags: constants.O_RDONLY }).catch(
    (error: unknown) => {
      throw error instanceof RefusedBeforeEffect ? error : new RefusedBeforeEffect((error as Error).message);
    },
  );
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new RefusedBeforeEffect(`"${path}" is not a regular file`);
    return stats.size;
  } finally {
    await handle.close();
  }
}

/** The platform's upload limit; refused before any card when Kazma has no surface there or it sends no files. */
function limitOf(surfaces: Pick<SurfaceRegistry, 'for'>, chat: ChatRef): number {
  let limit: number | undefined;
  try {
    limit = surfaces.for(chat).fileLimit;
  } catch {
    throw new RefusedBeforeEffect(`Kazma is not connected to ${chat.split(':')[0]}, so it cannot send files there`);
  }
  if (limit === undefined) throw new RefusedBeforeEffect(`Kazma does not send files on ${chat.split(':')[0]}`);
  return limit;
}
