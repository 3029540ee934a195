export { loadConfig, parseConfig, type LoadedConfig, type LoadConfigOptions } from './load.ts';
export { configSchema, type KazmaConfig, type Operator } from './schema.ts';
export { parseDuration } from './duration.ts';
export type { Environment } from './env-substitution.ts';
