export { loadConfig, parseConfig, xdgDataDir, type LoadedConfig } from './load.ts';
export { configSchema, type KazmaConfig } from './schema.ts';
export { assertPlatformSection, enabledPlatformIssues, receiversOnHttpPort } from './platform-rules.ts';
export { didYouMean } from './did-you-mean.ts';
export { parseDuration } from './duration.ts';
export { mcpServerSchema, trustIssues, type McpServerConfig } from './mcp-schema.ts';
export { crossFieldIssues } from './cross-field.ts';
export type { Operator } from './schema.ts';
