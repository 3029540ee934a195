// The public face of core/runs.
export { incidentLine } from './commands.ts';
export { openIncidents, type IncidentRow } from './incident-store.ts';
export { progressStamps } from './progress.ts';
export { chatRun, runOf, runQueue, type RunRef } from './ref.ts';
export { RunSupervisor, type SupervisorStage } from './supervisor.ts';
export { watchGates } from './watch-gates.ts';
export { watchOutbox } from './watch-outbox.ts';
export { watchSchedules } from './watch-schedules.ts';
export { watchTasks } from './watch-tasks.ts';
export { watchTurns } from './watch-turns.ts';
export type { WatchedKind } from './watch.ts';
