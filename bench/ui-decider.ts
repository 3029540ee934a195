// The second process of bench/ui.ts (c): another Kazma process on the same PostgreSQL, deciding approvals
// as a chat tap does. It reads gate ids from stdin, one a line, decides each through the broker (first
// decision wins), whose outbox dispatch tells the database — the NOTIFY every process's outbox sends
// (src/assembly/base.ts) — and answers `decided <id>` on stdout.
//
//   node --import tsx bench/ui-decider.ts <database url>     (started by bench/ui.ts)
import { createInterface } from 'node:readline';
import { DurableApprovalBroker } from '../src/core/approvals/durable-broker.ts';
import { openDatabase } from '../src/core/db/index.ts';
import { FirstDecisionWins } from '../src/core/decisions/first-wins.ts';
import { createLogger } from '../src/core/log/index.ts';
import { SurfaceRegistry } from '../src/core/surface/index.ts';

const url = process.argv[2];
if (!url) throw new Error('usage: bench/ui-decider.ts <database url>');
const database = await openDatabase({ url, poolSize: 4 });
const { db, changes } = database;
const logger = createLogger({ level: 'silent' });
const broker = new DurableApprovalBroker({
  db,
  decisions: new FirstDecisionWins({
    db,
    outbox: { dispatch: async () => changes?.notify() },
    surfaces: new SurfaceRegistry(),
    logger,
  }),
  channels: [],
  logger,
  timeoutMs: 3_600_000,
  grantTtlMs: 3_600_000,
  mayDecide: () => undefined,
  operatorName: () => 'omar',
});
const OMAR = { platform: 'slack', id: 'U0MAR', displayName: 'omar' };
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const gateId = line.trim();
  const outcome = await broker.decide({ gateId, decision: 'once', actor: OMAR });
  process.stdout.write(`${outcome.ok ? 'decided' : 'refused'} ${gateId}\n`);
}
await database.close();
