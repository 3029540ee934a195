// Drizzle's PGlite driver, which client.ts loads only when the embedded database is the one configured.
// A file of ours is the lazy import, not the package: the bundle links a package loaded by import()
// differently from a static import (a CommonJS one lost its named exports in dist/ alone).
import { drizzle } from 'drizzle-orm/pglite';

export const drizzlePglite: typeof drizzle = drizzle;
