// One process holds two undici: ours (7, loaded with the model's fetch) and discord.js's (6). Whichever
// loads first installs its Agent as the global dispatcher both read, and a multipart body undici 6 made is
// not a FormData to undici 7 ("action is not a function"). Kazma's Discord REST clients send through
// their own request function and dispatcher (rest-request.ts), so an upload works whichever came first.
// Only undici 7 is imported statically: discord.js (and its undici 6) load after it, inside the test.
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { expect, it } from 'vitest';
import { modelFetch } from '../../../src/core/agent/model/model-fetch.ts';

it('uploads a file through Kazma’s Discord REST with undici 7 loaded first, bytes equal', async () => {
  // undici 7 is loaded and its Agent is the global dispatcher, as when it loads first in a Kazma process (a
  // test worker may have loaded discord.js for an earlier file, so the global is set here, and put back).
  expect(typeof modelFetch).toBe('function');
  const before = getGlobalDispatcher();
  const ours = new Agent();
  setGlobalDispatcher(ours);
  expect(getGlobalDispatcher()).toBe(ours);
  const { Routes } = await import('discord.js');
  const { createRest } = await import('../../../src/adapters/discord/client.ts');
  const { startFakeDiscord } = await import('../../fakes/discord/fake-discord.ts');
  const { GENERAL } = await import('../../fakes/discord/harness.ts');
  const fake = await startFakeDiscord();
  try {
    const rest = createRest({ token: fake.token, api: fake.api, retries: 0 });
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    await rest.post(Routes.channelMessages(GENERAL), {
      body: { content: 'the report 📎' },
      files: [{ name: 'report.bin', data: bytes, contentType: 'application/octet-stream' }],
    });
    const [stored] = fake.messages(GENERAL);
    expect(stored?.content).toBe('the report 📎');
    expect(stored?.files[0]?.data.equals(bytes)).toBe(true);
    expect(stored?.attachments[0]).toMatchObject({ filename: 'report.bin', size: bytes.length });
  } finally {
    await fake.close();
    setGlobalDispatcher(before);
    await ours.close();
  }
});
