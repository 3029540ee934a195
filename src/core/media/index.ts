// Media in: a message's photos, documents and voice, downloaded within limits and made into the model's input.
export { KeptDownloads } from './kept-downloads.ts';
export { keepBytes, pruneKeptFiles } from './kept-files.ts';
export { MediaReader } from './reader.ts';
export { transcriptionSettings } from './transcribe.ts';
export { TranscriptStore } from './transcripts.ts';
