export { openDatabase, redactUrl, type Database, type Db } from './client.ts';
export { migrateDatabase, type MigrationStep } from './migrate.ts';
export * as schema from './schema/index.ts';
