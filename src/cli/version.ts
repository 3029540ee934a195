import { readFileSync } from 'node:fs';

/** The version in package.json, the one place it is written. */
export function kazmaVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
