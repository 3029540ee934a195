export { openDatabase, type Database, type Db } from './client.ts';
export { redactUrl } from './postgres-causes.ts';
export { migrateDatabase, type MigrationStep } from './migrate.ts';
export { copyDatabase, DATA_SCHEMAS } from './copy.ts';
export * as schema from './schema/index.ts';
export { isConnectionError, onLiveConnection } from './connection-errors.ts';
export { dataDirOwner, DataDirLockedError } from './data-dir-lock.ts';
export { builtOnce, dialect, queryPrepared, rowsOf } from './prepared.ts';
export {
  DECISIONS,
  GATE_STATES,
  approvalGates,
  approvalGrants,
  type Decision,
  type GateApproval,
  type GatePolicy,
  type GateState,
  type StoredActor,
} from './schema/approvals.ts';
export { chatThreads, inbox, type InboxState } from './schema/chat.ts';
export { commandEffects, effectReceipts, type EffectReceipt, type ExecuteResult } from './schema/effects.ts';
export { runIncidents, type Problem, type WorkKind } from './schema/incidents.ts';
export { MEMORY_SOURCES, type MemorySource } from './schema/memories.ts';
export { threadLeases } from './schema/leases.ts';
export { mcpServers } from './schema/mcp.ts';
export { outbox, type OutboxKind, type OutboxState } from './schema/outbox.ts';
export { decisionQuestions, type QuestionOption, type QuestionState } from './schema/questions.ts';
export { decisionAudit, type DecisionAuditKind } from './schema/decision-audit.ts';
export { schedules, type ScheduleState } from './schema/schedules.ts';
export { configAudit, settings } from './schema/settings.ts';
export { tasks, type TaskState } from './schema/tasks.ts';
export { ARCHIVE_REASONS, threadTranscript } from './schema/transcript.ts';
export { vaultKeyring, vaultSecrets } from './schema/vault.ts';
export { uiSessions } from './schema/ui-sessions.ts';
export { operatorClaims, pairedUsers, pairingCodes } from './schema/pairing.ts';
export { DiskSpace } from './disk-space.ts';
export { mediaFiles, mediaTranscripts } from './schema/media.ts';
export { welcomedPeople } from './schema/welcomes.ts';
