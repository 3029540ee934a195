import { createHash } from 'node:crypto';

/** A skill tool renamed to stay clear of another tool starts with this. */
export const SKILL_PREFIX = 'skill__';
const MAX_NAME = 64;
// Names in these namespaces belong to MCP servers and to renamed skill tools; a skill may not take one.
const RESERVED = /^(mcp|skill)__/;

/**
 * `skill__<skill>__<tool>`, cut to 64 characters (the OpenAI function-name limit) with a short hash of
 * the whole name when longer, so two long tools of one skill still differ.
 */
export function skillToolName(skill: string, tool: string): string {
  const full = `${SKILL_PREFIX}${skill}__${tool}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash('sha256').update(`${skill}\0${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

/**
 * The name a skill's tool is registered under: its own, unless that is taken (a built-in, another
 * skill's tool) or reserved; then the namespaced one. Undefined when even that is taken.
 */
export function freeName(skill: string, tool: string, taken: ReadonlySet<string>): string | undefined {
  if (!taken.has(tool) && !RESERVED.test(tool)) return tool;
  const spaced = skillToolName(skill, tool);
  return taken.has(spaced) ? undefined : spaced;
}
