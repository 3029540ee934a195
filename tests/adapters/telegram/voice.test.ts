// Voice notes and audio files sent to the bot on Telegram: downloaded with the Bot API, transcribed once
// through the model's OpenAI-compatible endpoint (`POST <base_url>/audio/transcriptions`, multipart), the
// transcript sent to the model as the person's words and shown to them in a short "🎙 heard: …" line.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { contentText } from '../../fakes/llm-wire.ts';
import { startFakeTelegram } from '../../fakes/telegram/index.ts';
import { freshDatabase } from '../../helpers/databases.ts';
import { MAYA, startHarness, type Harness } from './harness.ts';

let llm: FakeLlm;
let h: Harness | undefined;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  llm.requests.length = 0;
  llm.transcriptions.length = 0;
});

/** What a voice note from the app looks like: an Ogg page's magic, then Opus bytes. */
const ogg = (size: number) => new Uint8Array(Buffer.concat([Buffer.from('OggS'), randomBytes(size)]));
const texts = () => h!.fake.messages(MAYA.id).map((m) => m.text);
function lastUserText(): string {
  const user = [...(llm.requests.at(-1)?.messages ?? [])].reverse().find((m) => m.role === 'user');
  return contentText(user?.content);
}

describe('voice notes', () => {
  it('transcribes a voice note once, sends the transcript to the model and shows what was heard', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const bytes = ogg(30_000);
    llm.hearNext('مرحبا، can you book the room for 3 pm? 🙂');
    h.voice({ chatId: MAYA.id, from: MAYA, bytes });
    await h.settled();
    expect(llm.transcriptions).toHaveLength(1);
    const [call] = llm.transcriptions;
    expect(call!.model).toBe('whisper-1');
    expect(call!.bytes.equals(Buffer.from(bytes))).toBe(true);
    expect(call!.fileType).toBe('audio/ogg');
    expect(call!.fileName).toMatch(/\.ogg$/);
    expect(llm.requests).toHaveLength(1);
    expect(lastUserText()).toContain('مرحبا، can you book the room for 3 pm? 🙂');
    expect(texts()).toEqual(['🎙 heard: مرحبا، can you book the room for 3 pm? 🙂', expect.stringContaining('echo: ')]);
    for (const body of llm.requests) expect(JSON.stringify(body)).not.toContain(h.fake.token);
  });

  it('takes the name from model.transcription.name, and an audio file with its caption', async () => {
    h = await startHarness({
      modelBaseUrl: llm.baseURL,
      config: { model: { name: 'fake-model', base_url: llm.baseURL, transcription: { name: 'whisper-large-v3' } } },
    });
    llm.hearNext('the minutes of Monday');
    h.voice({ chatId: MAYA.id, from: MAYA, bytes: ogg(2_000), fileName: 'minutes.mp3', caption: 'summarise' });
    await h.settled();
    expect(llm.transcriptions.map((t) => [t.model, t.fileName, t.fileType])).toEqual([
      ['whisper-large-v3', 'minutes.mp3', 'audio/mpeg'],
    ]);
    const said = lastUserText();
    expect(said).toContain('summarise');
    expect(said).toContain('the minutes of Monday');
    expect(texts()[0]).toBe('🎙 heard: the minutes of Monday');
  });

  it('shortens a long transcript in the heard line, never in what the model gets', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL });
    const long = `${'word '.repeat(200)}end`;
    llm.hearNext(long);
    h.voice({ chatId: MAYA.id, from: MAYA, bytes: ogg(1_000) });
    await h.settled();
    const heard = texts()[0]!;
    expect(heard.startsWith('🎙 heard: word word')).toBe(true);
    expect(heard.endsWith('…')).toBe(true);
    expect(heard.length).toBeLessThan(300);
    expect(lastUserText()).toContain(long);
  });

  it('refuses a voice note over media.max_bytes before it is downloaded or transcribed', async () => {
    h = await startHarness({ modelBaseUrl: llm.baseURL, config: { media: { max_bytes: '64KB' } } });
    h.voice({ chatId: MAYA.id, from: MAYA, bytes: ogg(100_000) });
    await h.settled();
    expect(texts()).toEqual([expect.stringMatching(/over the 64 KB limit for files \(media\.max_bytes\)/)]);
    expect(h.fake.downloads).toEqual([]);
    expect(llm.transcriptions).toEqual([]);
    expect(llm.requests).toEqual([]);
  });

  it('tells the person when the endpoint cannot transcribe, naming the key, and goes on serving', async () => {
    h = await startHarness({
      modelBaseUrl: llm.baseURL,
      config: {
        model: { name: 'fake-model', base_url: llm.baseURL, transcription: { base_url: `${llm.origin}/nowhere` } },
      },
    });
    h.voice({ chatId: MAYA.id, from: MAYA, bytes: ogg(1_000), caption: 'listen' });
    await h.settled();
    expect(texts()[0]).toMatch(/^⚠️ the voice message could not be transcribed: .*HTTP 404.*model\.transcription/);
    expect(texts()[1]).toBe('echo: listen');
    expect(llm.transcriptions).toEqual([]);
  });

  it('keeps the transcript: a turn stopped after it was heard is taken up again without a second call', async () => {
    const database = await freshDatabase('pglite');
    const fake = await startFakeTelegram();
    try {
      h = await startHarness({ modelBaseUrl: llm.baseURL, database, fake });
      // The heard line is the turn's first send: held there, the turn has its words and no checkpoint yet.
      const hold = fake.holdNext('sendMessage');
      llm.hearNext('call the plumber tomorrow');
      h.voice({ chatId: MAYA.id, from: MAYA, bytes: ogg(4_000) });
      await hold.held;
      expect(llm.transcriptions).toHaveLength(1);
      expect(llm.requests).toEqual([]);
      await h.close();
      h = undefined;
      hold.release();
      h = await startHarness({ modelBaseUrl: llm.baseURL, database, fake });
      await h.settled();
      expect(llm.transcriptions).toHaveLength(1);
      expect(llm.requests).toHaveLength(1);
      expect(lastUserText()).toContain('call the plumber tomorrow');
    } finally {
      await h?.close();
      h = undefined;
      await fake.close();
      await database.dispose();
    }
  });
});
