// The kept transcripts (media_transcripts) on PGlite and PostgreSQL: the first text kept for a file in a
// chat stays (a second run of the turn reads it, never its own), the key tells chats and files apart, and
// the sweep removes those kept past media.retention.
import { expect, it } from 'vitest';
import { TranscriptStore } from '../../src/core/media/index.ts';
import { transcriptKey } from '../../src/core/media/transcripts.ts';
import type { Attachment } from '../../src/core/surface/index.ts';
import { describeEachBackend } from '../helpers/databases.ts';

const voice: Attachment = { kind: 'audio', ref: 'AwACAgIAAxkBAAI000001fake', mime: 'audio/ogg' };

describeEachBackend('TranscriptStore', (db) => {
  it('keeps the first text for a file in a chat, and gives it back to a later run', async () => {
    const store = new TranscriptStore(db().db);
    const key = transcriptKey('telegram:42', voice);
    expect(await store.get(key)).toBeUndefined();
    expect(await store.keep(key, 'مرحبا 🙂 first')).toBe('مرحبا 🙂 first');
    expect(await new TranscriptStore(db().db).keep(key, 'second')).toBe('مرحبا 🙂 first');
    expect(await store.get(key)).toBe('مرحبا 🙂 first');
    expect(transcriptKey('telegram:43', voice)).not.toBe(key);
    expect(transcriptKey('telegram:42', { ...voice, ref: 'other' })).not.toBe(key);
  });

  it('removes transcripts kept before the cut-off, and only those', async () => {
    const store = new TranscriptStore(db().db);
    await store.keep('old', 'kept a while');
    expect(await store.prune(new Date(Date.now() - 3_600_000))).toBe(0);
    expect(await store.get('old')).toBe('kept a while');
    expect(await store.prune(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(1); // the file's earlier rows too
    expect(await store.get('old')).toBeUndefined();
  });
});
