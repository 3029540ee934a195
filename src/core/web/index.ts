// The public face of core/web: web_fetch and web_search behind the egress guard.
export { createWeb } from './module.ts';
