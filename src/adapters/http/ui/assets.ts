// The page's static assets, embedded and named by a digest of their content: served with a year's
// caching, and a new build (new content) is a new name, so no browser keeps an old script.
import { createHash } from 'node:crypto';
import { LIVE_SCRIPT } from './live-script.ts';
import { STYLE } from './style.ts';

export interface Asset {
  path: string;
  type: string;
  body: string;
}

const named = (name: string, ext: string, type: string, body: string): Asset => ({
  path: `/ui/assets/${name}.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`,
  type,
  body,
});

export const ASSETS = {
  style: named('style', 'css', 'text/css; charset=utf-8', STYLE),
  live: named('live', 'js', 'text/javascript; charset=utf-8', LIVE_SCRIPT),
} as const;
