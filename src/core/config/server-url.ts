// A server's URL in kazma.yaml (database.url, redis.url): checked for its scheme when the file is read, so
// a mysql:// URL is refused naming its key instead of being dialled as PostgreSQL.
import { z } from 'zod';
import { isVaultPointer } from '../secrets/index.ts';

/** A server's URL, or '' for the default: a URL of another scheme fails at load, naming its key. */
export function serverUrl(schemes: string[], what: string) {
  return z
    .string()
    .default('')
    .refine((url) => url === '' || isVaultPointer(url) || schemes.some((s) => url.startsWith(`${s}/`)), {
      message: `expected ${what} or nothing`,
    })
    .refine((url) => url === '' || URL.canParse(url), { message: 'not a URL that can be parsed' });
}
