export { loadConfig, parseConfig, type LoadedConfig } from './load.ts';
export { configSchema, type KazmaConfig } from './schema.ts';
export { assertPlatformSection, enabledPlatformIssues } from './platform-rules.ts';
