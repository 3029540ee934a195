#!/usr/bin/env node
// Runs the compiled CLI (dist/, from `npm run build`) when it is current; otherwise the TypeScript source
// through tsx, so a checkout that was never built (or was edited since) runs what is in src/, never old code.
import { pathToFileURL } from 'node:url';
import { distPaths, distState } from './dist-state.js';

if (distState().state === 'fresh') {
  await import(pathToFileURL(distPaths().cli).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/index.ts');
}
