import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../tools/index.ts';
import { materializeSkill } from './cache.ts';
import type { SealedSkill } from './checksum.ts';
import type { SkillManifest } from './manifest.ts';

/**
 * What a skill module's default-exported function receives: the same `defineTool` the built-ins use and
 * zod, so a skill folder needs no dependency on Kazma's own files.
 *
 * @example
 * // skills/weather/index.js
 * export default ({ defineTool, z }) => [
 *   defineTool({
 *     name: 'weather', description: '…', tier: 'safe', effects: false, outside: true,
 *     input: z.object({ city: z.string() }), run: async ({ city }) => `sunny in ${city}`,
 *   }),
 * ];
 */
export interface SkillKit {
  defineTool: typeof defineTool;
  z: typeof z;
}

const isTool = (value: unknown): value is ToolDefinition =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ToolDefinition).name === 'string' &&
  typeof (value as ToolDefinition).run === 'function';

/**
 * Imports a checked skill's entry module from the sealed copy of its bytes (`<cacheRoot>/<checksum>`, see
 * cache.ts) — never from its folder — and returns its tools: a default export that is a function of
 * {@link SkillKit} (or an array), and every exported tool or array of tools. Each goes through
 * `defineTool` again, so a malformed one fails here, at start, naming the skill.
 */
export async function importSkillTools(
  skill: { name: string; manifest?: SkillManifest; sealed?: SealedSkill },
  cacheRoot: string,
): Promise<ToolDefinition[]> {
  const { manifest, sealed } = skill;
  if (!manifest || !sealed) throw new Error(`skill "${skill.name}" was not verified, so none of its code may run`);
  let exported: Record<string, unknown>;
  try {
    const dir = materializeSkill(sealed, cacheRoot);
    exported = (await import(pathToFileURL(resolve(dir, manifest.entry_point)).href)) as Record<string, unknown>;
  } catch (error) {
    // Node reads a `.js` file as CommonJS unless a package.json says `"type": "module"`: the usual first stumble.
    const hint = manifest.entry_point.endsWith('.js')
      ? ' (an ES module needs the .mjs extension, or a package.json with "type": "module" in the skill folder)'
      : '';
    throw new Error(`${(error as Error).message}${hint}`, { cause: error });
  }
  const found: unknown[] = [];
  for (const [key, value] of Object.entries(exported)) {
    const resolved =
      key === 'default' && typeof value === 'function'
        ? await (value as (kit: SkillKit) => unknown)({ defineTool, z })
        : value;
    found.push(...(Array.isArray(resolved) ? resolved : [resolved]));
  }
  const tools = found.filter(isTool);
  if (tools.length === 0)
    throw new Error(
      `${manifest.entry_point} exports no tools (export default ({ defineTool, z }) => [defineTool({...})])`,
    );
  return tools.map((tool) => {
    if (typeof (tool.input as { safeParse?: unknown } | undefined)?.safeParse !== 'function')
      throw new Error(`tool "${tool.name}" has no zod object as its input`);
    // A skill's code is not Kazma's: unless it says otherwise, what its tools return is fenced as outside text.
    return defineTool({ ...tool, outside: tool.outside ?? true });
  });
}
