// Graceful stop: intake closes at once, running turns finish (bounded by the timeout), then they are aborted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestCore } from './helpers/core.ts';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});

describe('core.stop', () => {
  it('waits for a running turn and refuses new events meanwhile', async () => {
    const t = await startTestCore({ baseURL: llm.baseURL });
    try {
      llm.hangNext(1, 600);
      const turn = t.say('slow one');
      await eventually(
        () => llm.attempts.length,
        (n) => n > 0,
        'the first model call',
        { intervalMs: 10 },
      );
      const stopping = t.core.stop(10_000);
      expect(await t.say('too late')).toBe('stopping');
      await stopping;
      expect(await turn).toBe('handled');
      expect(t.surface.texts()).toEqual(['echo: slow one']);
    } finally {
      await t.close();
    }
  });

  it('aborts a turn that outlives the timeout, says nothing, and the next start finishes it once', async () => {
    llm.attempts.length = 0;
    const database = await freshDatabase('pglite');
    const t = await startTestCore({ baseURL: llm.baseURL, database });
    try {
      llm.hangNext(1, 30_000);
      const turn = t.say('never answered');
      await eventually(
        () => llm.attempts.length,
        (n) => n > 0,
        'the first model call',
        { intervalMs: 10 },
      );
      const started = Date.now();
      await t.core.stop(300);
      expect(Date.now() - started).toBeLessThan(3000);
      // A shutdown is not the turn's failure: no ⚠️, and the event stays open for the next start.
      expect(await turn).toBe('stopping');
      expect(t.surface.texts()).toEqual([]);
    } finally {
      await t.close();
    }
    const again = await startTestCore({ baseURL: llm.baseURL, database, surface: t.surface });
    try {
      // Taken up by the start itself: nothing to ask for.
      await again.core.idle();
      expect(t.surface.texts()).toEqual(['echo: never answered']);
    } finally {
      await again.close();
      await database.dispose();
    }
  });
});
