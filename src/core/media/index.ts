// Media in: a message's photos and documents, downloaded within limits and made into the model's input.
export { MediaReader } from './reader.ts';
