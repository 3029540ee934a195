// The memory module's public face: what Kazma remembers per person and chat, and how it is recalled.
export { memoryDoctorCheck } from './doctor.ts';
export { EmbeddingsClient, embeddingsSettings } from './embeddings.ts';
export { MemoryStore } from './store.ts';
export { selectRecalled } from './recall.ts';
export { recalledNotes } from './recalled-text.ts';
