// The console surface: the terminal as one more chat platform (`kazma chat`).
export { ConsoleSurface } from './surface.ts';
export { ConsoleSession, type ConsoleSessionOptions } from './session.ts';
export { buttonFor, CARD_PREFIX, renderCard, renderReply, REPLY_PREFIX, shortcuts } from './render.ts';
