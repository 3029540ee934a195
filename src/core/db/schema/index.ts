// One file per table group; this index is what drizzle-kit and the client see.
export * from './settings.ts';
export * from './effects.ts';
export * from './chat.ts';
export * from './approvals.ts';
export * from './outbox.ts';
export * from './questions.ts';
export * from './decision-audit.ts';
export * from './leases.ts';
export * from './tasks.ts';
export * from './schedules.ts';
export * from './vault.ts';
export * from './incidents.ts';
export * from './mcp.ts';
export * from './transcript.ts';
export * from './memories.ts';
export * from './ui-sessions.ts';
export * from './media.ts';
