export { openDatabase, redactUrl, type Database, type Db, type OpenDatabaseOptions } from './client.ts';
export { migrateDatabase, MIGRATIONS_FOLDER, type MigrationStep } from './migrate.ts';
export { lockDataDir, DataDirLockedError, type DataDirLock } from './data-dir-lock.ts';
export * as schema from './schema/index.ts';
