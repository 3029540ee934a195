// The public face of core/skills.
export {
  agentSkillLine,
  agentSkillRoots,
  installRoot,
  scanAgentSkills,
  secretOf,
  type AgentSkillEntry,
} from './agent/catalog.ts';
export { sealFolder } from './agent/install-seal.ts';
export { installAgentSkill } from './agent/install.ts';
export { createAgentSkills, installSandbox } from './agent/module.ts';
export { agentSkillTools } from './agent/tools.ts';
export { skillFiles } from './checksum.ts';
export { SkillSecretMissingError, SkillUnknownError } from './errors.ts';
export { HUB_URL_ENV, searchHub } from './hub-client.ts';
export { inspectSkill, inspectSkills, reportLine, type SkillReport } from './inventory.ts';
export { importSkillTools } from './load.ts';
export { readManifest, writeSignature } from './manifest.ts';
export { SECRET_ENV, signSkill } from './verify.ts';
