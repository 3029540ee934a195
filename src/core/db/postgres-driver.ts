// postgres.js and drizzle's driver for it, which client.ts loads only when database.url is set. A file of
// ours is the lazy import, not the packages: the bundle links a package loaded by import() differently
// from a static import (a CommonJS one lost its named exports in dist/ alone).
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';

export const postgresClient: typeof postgres = postgres;
export const drizzlePostgres: typeof drizzle = drizzle;
