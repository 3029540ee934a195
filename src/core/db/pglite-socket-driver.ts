// pglite-socket, which embedded-server.ts loads only when it serves the embedded database. A file of ours
// is the lazy import, not the package: the bundle links a package loaded by import() differently from a
// static import (stack-notes §12).
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export { PGLiteSocketServer };
