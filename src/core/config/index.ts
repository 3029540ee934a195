export { loadConfig, parseConfig, type LoadedConfig, type LoadConfigOptions } from './load.ts';
export { configSchema, type KazmaConfig, type Operator } from './schema.ts';
export { parseDuration } from './duration.ts';
export { assertPlatformSection, enabledPlatformIssues } from './platform-rules.ts';
export type { Environment } from './env-substitution.ts';
