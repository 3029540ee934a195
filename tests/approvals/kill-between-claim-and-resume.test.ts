// Acceptance: a process dies (SIGKILL) after a decision won the gate's compare-and-set but before it
// resumed the graph. After a restart the reconciler resumes it exactly once and the effect runs once.
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transitionGate } from '../../src/core/approvals/transition.ts';
import { openDatabase, type Database } from '../../src/core/db/index.ts';
import { approvalGates } from '../../src/core/db/schema/approvals.ts';
import { startFakeLlm, type FakeLlm } from '../fakes/llm-server.ts';
import { killAll, spawnNode } from '../agent/helpers/spawn.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';
import { createPgDatabase, seedPgliteDataDir } from '../helpers/databases.ts';

const CHILD = join(REPO_ROOT, 'tests/approvals/fixtures/marking-chat.ts');
let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(() => killAll());

describe.each(['pglite', 'postgres'] as const)('kill -9 between claim and resume [%s]', (backend) => {
  it('after restart the reconciler resumes the gate once; the effect ran once; the reply reaches the chat', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kazma-claim-'));
    const pg = backend === 'postgres' ? await createPgDatabase() : undefined;
    if (!pg) await seedPgliteDataDir(join(dir, 'data'));
    const config = join(dir, 'kazma.yaml');
    writeFileSync(
      config,
      JSON.stringify({
        data_dir: join(dir, 'data'),
        http: { port: 0 },
        database: { url: pg?.url ?? '' },
        model: { name: 'fake', base_url: llm.baseURL, max_retries: 0 },
        access: { operators: [{ name: 'maya', console: 'maya' }] },
        approvals: { lease_ttl: '0s' },
      }),
    );
    const marker = join(dir, 'marker.txt');
    llm.requests.length = 0;
    llm.script({ toolCalls: [{ name: 'mark', args: { line: 'approved effect' } }] });
    try {
      // Process 1 asks for approval, then dies with the question open.
      const first = spawnNode(CHILD, ['--config', config, '--marker', marker]);
      first.send(['please mark it']);
      await first.waitFor('[o]nce / [a]lways / [d]eny?');
      first.child.kill('SIGKILL');
      await first.exited;

      // The decision's compare-and-set committed (as in a process that dies right after it).
      const database = await open(dir, pg?.url);
      const [gate] = await database.db.select().from(approvalGates);
      expect(gate?.state).toBe('pending');
      const claimed = await transitionGate(database.db, {
        id: gate!.id,
        from: 'pending',
        to: 'claimed',
        patch: {
          decision: 'once',
          decidedBy: { platform: 'console', id: 'maya', operator: 'maya' },
          decidedPlatform: 'console',
          claimedAt: new Date(),
        },
      });
      expect(claimed.ok).toBe(true);
      await database.close();
      expect(existsSync(marker)).toBe(false);

      // Process 2: the start-up sweep heals it; input ends at once, so the process exits when done.
      const second = spawnNode(CHILD, ['--config', config, '--marker', marker]);
      second.send([], true);
      const { code } = await second.exited;
      expect(code, second.stderr()).toBe(0);
      expect(readFileSync(marker, 'utf8').trim().split('\n')).toEqual([
        expect.stringMatching(/^approved effect by pid \d+$/),
      ]);
      expect(second.stdout()).toContain('kazma> done: marked approved effect');
      expect(llm.requests.filter((r) => r.messages?.at(-1)?.role === 'tool')).toHaveLength(1);

      const after = await open(dir, pg?.url);
      const [settled] = await after.db.select().from(approvalGates);
      await after.close();
      expect(settled).toMatchObject({ state: 'settled', decision: 'once' });
    } finally {
      await pg?.drop();
    }
  });
});

function open(dir: string, url: string | undefined): Promise<Database> {
  return openDatabase(url ? { url } : { dataDir: join(dir, 'data') });
}
