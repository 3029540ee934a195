// The web tools' HTTP client, loaded with the first web request (undici 7 takes ~150 ms to load; discord.js
// brings its own undici 6, so it is not shared). client.ts imports this file lazily, never 'undici'
// itself: in the bundle a package loaded by import() got esbuild's default-only CommonJS wrapper, and
// `request` was undefined in dist/ alone. Imported statically here, undici is linked as everywhere else.
import { request } from 'undici';

export { pinnedAgent } from './pinned.ts';

/** undici's `request`, as client.ts sends each hop. */
export const send: typeof request = request;
