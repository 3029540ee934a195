// Media in: a message's photos and documents, downloaded within limits and made into the model's input.
export { MediaRefusal } from './download.ts';
export {
  MediaReader,
  type ContentPart,
  type MediaReaderOptions,
  type MediaSettings,
  type ReadMessage,
} from './reader.ts';
