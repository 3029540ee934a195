// The memory module's public face: what Kazma remembers per person and chat, and how it is recalled.
export { MemoryStore } from './store.ts';
