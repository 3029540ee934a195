// Transcripts kept once heard (table `media_transcripts`): a voice message's turn taken up again after a
// crash finds its words here, and the transcription endpoint is asked once per file in a chat.
import { createHash } from 'node:crypto';
import { eq, lt } from 'drizzle-orm';
import { type Db, mediaTranscripts } from '../db/index.ts';
import type { Attachment, ChatRef } from '../surface/index.ts';

/** The row's key: the same file (its platform reference) in the same chat. */
export function transcriptKey(chat: ChatRef, attachment: Attachment): string {
  return createHash('sha256').update(`${chat}\n${attachment.ref}`).digest('hex');
}

export class TranscriptStore {
  constructor(private readonly db: Db) {}

  async get(key: string): Promise<string | undefined> {
    const [row] = await this.db
      .select({ text: mediaTranscripts.text })
      .from(mediaTranscripts)
      .where(eq(mediaTranscripts.key, key));
    return row?.text;
  }

  /** Keeps `text` under `key`; a text kept first (another run of the turn) stays, and is returned. */
  async keep(key: string, text: string): Promise<string> {
    await this.db.insert(mediaTranscripts).values({ key, text }).onConflictDoNothing();
    return (await this.get(key)) ?? text;
  }

  /** Removes transcripts kept before `before` (`media.retention`); how many went. */
  async prune(before: Date): Promise<number> {
    const gone = await this.db
      .delete(mediaTranscripts)
      .where(lt(mediaTranscripts.createdAt, before))
      .returning({ key: mediaTranscripts.key });
    return gone.length;
  }
}
