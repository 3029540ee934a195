// The audit export: a fixed fixture gives the committed golden files byte for byte (JSON Lines and CSV), through the
// core function and through `kazma approvals export` against the same database; --since leaves older questions out.
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approvalsExport } from '../../../src/cli/commands/approvals.ts';
import { approvalRecords, toCsv, toJsonLines } from '../../../src/core/approvals/index.ts';
import type { Db } from '../../../src/core/db/index.ts';
import { approvalGates } from '../../../src/core/db/schema/approvals.ts';
import { decisionAudit } from '../../../src/core/db/schema/decision-audit.ts';
import { createPgDatabase, freshDatabase, type FreshDatabase } from '../../helpers/databases.ts';
import { REPO_ROOT } from '../../helpers/repo-root.ts';

const GOLDEN = `${REPO_ROOT}/tests/approvals/fixtures/export`;
const SECRET = 'hunter2-very-secret';
const maya = { platform: 'telegram', id: '42', operator: 'maya' };
const omar = { platform: 'slack', id: 'U0OMAR', operator: 'omar' };
const stranger = { platform: 'telegram', id: '555', displayName: 'Sam "the, tester"' };
const at = (hhmm: string) => new Date(`2026-03-01T${hhmm}:00.000Z`);
const production = {
  name: 'production',
  approvals: 2,
  approvers: ['maya', 'omar'],
  requesterMayApprove: true,
  denyReason: 'required' as const,
  escalateTo: [],
};

/** Two questions: a two-person shell call (a stranger refused, maya twice, omar completes it) and a denied launch. */
async function fixture(db: Db): Promise<void> {
  const gate = { interruptId: 'i', threadId: 't', callId: 'c', argsHash: 'h', state: 'settled' as const };
  await db.insert(approvalGates).values([
    {
      ...gate,
      id: 'gt_push',
      originChat: 'telegram:-1005000',
      requester: maya,
      tool: 'shell',
      args: { command: `git push https://bot:${SECRET}@example.org/repo main`, note: 'مرحبا 👋' },
      tier: 'danger',
      reason: 'shell commands need approval',
      decision: 'once',
      policy: production,
      createdAt: at('12:00'),
      expiresAt: at('12:30'),
    },
    {
      ...gate,
      id: 'gt_launch',
      originChat: 'slack:C0OPS',
      requester: omar,
      tool: 'launch',
      args: { target: 'prod', token: SECRET },
      tier: 'danger',
      reason: 'danger tier',
      decision: 'deny',
      createdAt: at('13:00'),
      expiresAt: at('13:30'),
    },
  ]);
  const row = (subjectId: string, time: string, outcome: string, extra: Record<string, unknown> = {}) => ({
    kind: 'gate' as const,
    subjectId,
    outcome,
    at: at(time),
    ...extra,
  });
  await db.insert(decisionAudit).values([
    // gt_push was asked with its `requested` row, as Kazma writes it now; gt_launch before there was one (its asking
    // comes from the gate row): both give the same record.
    row('gt_push', '12:00', 'requested', {
      actor: maya,
      platform: 'telegram',
      detail: 'shell commands need approval',
      eventKey: 'requested:i',
    }),
    row('gt_push', '12:01', 'refused', {
      actor: stranger,
      platform: 'telegram',
      decision: 'once',
      detail: 'only operators may approve tool calls',
    }),
    row('gt_push', '12:02', 'counted', {
      actor: maya,
      platform: 'telegram',
      decision: 'once',
      detail: 'production: 1 of 2',
    }),
    row('gt_push', '12:03', 'duplicate', {
      actor: { ...maya, platform: 'slack', id: 'U0MAYA' },
      platform: 'slack',
      decision: 'once',
      detail: 'maya had already approved',
    }),
    row('gt_push', '12:04', 'won', {
      actor: omar,
      platform: 'slack',
      decision: 'once',
      detail: 'production: 2 of 2',
    }),
    row('gt_launch', '13:05', 'won', {
      actor: maya,
      platform: 'telegram',
      decision: 'deny',
      detail: `not with ${SECRET} in it`,
    }),
    row('gt_launch', '13:06', 'lost', { actor: omar, platform: 'slack', decision: 'once', detail: 'claimed' }),
  ]);
}

/** Compares with a golden file; KAZMA_UPDATE_GOLDEN=1 writes it instead (then review the diff before committing). */
function golden(name: string, actual: string): void {
  if (process.env.KAZMA_UPDATE_GOLDEN === '1') writeFileSync(`${GOLDEN}/${name}`, actual);
  expect(actual).toBe(readFileSync(`${GOLDEN}/${name}`, 'utf8'));
}

describe('kazma approvals export', () => {
  let database: FreshDatabase | undefined;
  beforeEach(async () => {
    database = await freshDatabase('pglite');
    await fixture(database.db);
  });
  afterEach(async () => {
    await database?.dispose();
  });

  it('a fixed fixture gives the golden JSON Lines and CSV, secrets masked, Arabic and emoji intact', async () => {
    const records = await approvalRecords(database!.db, { secrets: [SECRET] });
    golden('audit.jsonl', toJsonLines(records));
    golden('audit.csv', toCsv(records));
    expect(toJsonLines(records)).not.toContain(SECRET);
    expect(toJsonLines(await approvalRecords(database!.db, { secrets: [SECRET] }))).toBe(toJsonLines(records));
  });

  it('--since leaves out questions asked before it', async () => {
    const records = await approvalRecords(database!.db, { since: at('12:30') });
    expect([...new Set(records.map((r) => r.gate))]).toEqual(['gt_launch']);
    expect(records.map((r) => r.step)).toEqual(['requested', 'won', 'lost']);
  });
});

describe('kazma approvals export (the command, on PostgreSQL)', () => {
  let dir: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await drop?.();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('prints the same bytes as the golden CSV; a bad --format is a usage error', async () => {
    const created = await createPgDatabase();
    drop = created.drop;
    dir = await mkdtemp(join(tmpdir(), 'kazma-export-'));
    const config = join(dir, 'kazma.yaml');
    writeFileSync(
      config,
      `data_dir: ./data\ntools: { workspace: ./work }\ndatabase: { url: "${created.url}" }\nmodel: { api_key: "${SECRET}" }\n`,
    );
    const { openDatabase, migrateDatabase } = await import('../../../src/core/db/index.ts');
    const seeded = await openDatabase({ url: created.url, poolSize: 1 });
    await migrateDatabase(seeded);
    await fixture(seeded.db);
    await seeded.close();

    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out += String(chunk);
      return true;
    });
    expect(await approvalsExport.run(['--config', config, '--format', 'csv'])).toBe(0);
    vi.restoreAllMocks();
    expect(out).toBe(readFileSync(`${GOLDEN}/audit.csv`, 'utf8'));

    const errors = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await approvalsExport.run(['--config', config, '--format', 'xml'])).toBe(2);
    expect(String(errors.mock.calls[0]?.[0])).toContain('--format is jsonl or csv, not "xml"');
  });
});
