// The console surface: the terminal as one more chat platform (`kazma chat`).
export { ConsoleSurface } from './surface.ts';
export { CONSOLE_CHAT, ConsoleSession } from './session.ts';
export { renderCard } from './render.ts';
