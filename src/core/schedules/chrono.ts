// chrono-node's parser, which when.ts loads lazily (chrono costs ~120 ms and ~4 MB of heap to load, for
// installs that never set a reminder). The package is imported statically here and the file of ours is
// the lazy import: the bundle links a package loaded by import() differently from a static import.
import { parse } from 'chrono-node';

/** chrono's `parse`, as when.ts reads a time. */
export const parseTimes: typeof parse = parse;
