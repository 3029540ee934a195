// The repository's root folder, for every test and helper: computed here once, from this file's place
// (tests/helpers/). A test never works it out itself, from its own place or the working directory
// (tests/foundation/test-conventions.test.ts checks that). Not for a spawned fixture: bundled, its
// import.meta.url is its bundle's.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder, without a trailing slash. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
