// `npm run test:fast`: the whole suite but the files that start real processes running Kazma (a `kazma`
// command, a fixture child) and the benches. Those are most of the suite's time; what is left checks
// every module in-process against the same real PostgreSQL, PGlite and Redis, in a few minutes.
// `npm test` (CI) still runs everything. tests/foundation/test-scripts.test.ts keeps this list complete.
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

/** Test files that spawn a process running Kazma's code; `npm run test:fast` leaves them out. */
export const PROCESS_TESTS = [
  'tests/adapters/discord/process.test.ts',
  'tests/adapters/slack/process.test.ts',
  'tests/adapters/telegram/process.test.ts',
  'tests/console/commands-while-running.test.ts',
  'tests/console/prompt-redraw.test.ts',
  'tests/adapters/http/ui-process.test.ts',
  'tests/adapters/http/metrics-idle.test.ts',
  'tests/agent/checkpointer/restart.test.ts',
  'tests/agent/restart.test.ts',
  'tests/approvals/kill-between-claim-and-resume.test.ts',
  'tests/approvals/policies/escalation-kill.test.ts',
  'tests/approvals/policies/two-of-three-processes.test.ts',
  'tests/approvals/two-processes.test.ts',
  'tests/chat/command-once.test.ts',
  'tests/chat/durable-inbound.test.ts',
  'tests/chat/two-processes-one-chat.test.ts',
  'tests/console/cli-usage.test.ts',
  'tests/console/kazma-chat.test.ts',
  'tests/deploy/deploy-files.test.ts',
  'tests/deploy/migrate-data.test.ts',
  'tests/effects/crash.test.ts',
  'tests/foundation/build.test.ts',
  'tests/foundation/compiled-tools.test.ts',
  'tests/foundation/config-check.test.ts',
  'tests/foundation/db-outage.test.ts',
  'tests/foundation/doctor-model.test.ts',
  'tests/foundation/init.test.ts',
  'tests/foundation/lock-no-lost-rows.test.ts',
  'tests/foundation/npm-package.test.ts',
  'tests/foundation/start-failures.test.ts',
  'tests/foundation/storage-failures.test.ts',
  'tests/foundation/redis-outage.test.ts',
  'tests/foundation/start.test.ts',
  'tests/foundation/signal-during-start.test.ts',
  'tests/foundation/unexpected-failure.test.ts',
  'tests/foundation/workspace-overlap.test.ts',
  'tests/mcp/cli.test.ts',
  'tests/memory/compiled-pgvector.test.ts',
  'tests/media/recovered-download-kill.test.ts',
  'tests/outbox/keyed-part-kill.test.ts',
  'tests/outbox/send-file-kill.test.ts',
  'tests/outbox/slack-file-kill.test.ts',
  'tests/outbox/multi-part-kill.test.ts',
  'tests/runs/incident-crash.test.ts',
  'tests/schedules/db-outage-due.test.ts',
  'tests/skills/cli.test.ts',
  'tests/streaming/kill-mid-stream.test.ts',
  'tests/streaming/kill-resumed-stream.test.ts',
  'tests/streaming/kill-before-record.test.ts',
  'tests/streaming/stop-across-processes.test.ts',
  'tests/tasks/workers.test.ts',
  'tests/tools/sandbox-report.test.ts',
  'tests/tools/sandbox.test.ts',
  'tests/tracing/otlp.test.ts',
  'tests/vault/cli.test.ts',
];

export default mergeConfig(
  base,
  defineConfig({
    test: { exclude: [...configDefaults.exclude, 'tests/bench/**', ...PROCESS_TESTS] },
  }),
);
