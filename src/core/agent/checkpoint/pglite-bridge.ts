// PGlite's node-postgres bridge, which the checkpointer loads only for the embedded database. A file of
// ours is the lazy import, not the package: the bundle links a package loaded by import() differently from
// a static import (this one is left outside the bundle today; the rule holds whatever the build does).
import { createPgConfig } from '@electric-sql/pglite/node-postgres';

export const pgConfigOf: typeof createPgConfig = createPgConfig;
