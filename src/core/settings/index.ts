// The public face of core/settings.
export { serverLine, toolLine } from './commands.ts';
export { LocalChanges } from './local-changes.ts';
export { RuntimeSettings } from './store.ts';
export { ToolsOverlay } from './tools-overlay.ts';
