import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes SQL migrations into migrations/; no database is needed to generate.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/core/db/schema/index.ts',
  out: './migrations',
});
