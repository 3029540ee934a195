// Skill folders written into temp directories for the skills tests: a skill.yaml, an entry module that
// imports a helper file inside the folder, and a way to sign them as `kazma hub sign` does.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readManifest, writeSignature } from '../../src/core/skills/manifest.ts';
import { signSkill } from '../../src/core/skills/verify.ts';

export const SECRET = 'skills-test-secret-0123456789';

/** A fresh temp directory to hold skill folders. */
export const skillsRoot = (): string => mkdtempSync(join(tmpdir(), 'kazma-skills-'));

/** A tool, as the source text of one `defineTool({...})` call inside the skill's default export. */
export function toolSource(name: string, options: { tier?: string; reply?: string } = {}): string {
  const tier = options.tier === undefined ? "tier: 'safe', " : options.tier ? `tier: '${options.tier}', ` : '';
  return `defineTool({ name: '${name}', description: 'Says ${name}.', ${tier}effects: false, outside: false, input: z.object({ who: z.string().default('you') }), run: async ({ who }) => words('${options.reply ?? name}', who) })`;
}

/**
 * Writes `<root>/<name>/` with skill.yaml, index.mjs (its tools) and lib/words.mjs (imported by index.mjs).
 * Returns the folder.
 */
export function writeSkill(root: string, name: string, options: { tools?: string[]; yaml?: string } = {}): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'lib'), { recursive: true });
  writeFileSync(
    join(dir, 'skill.yaml'),
    options.yaml ??
      `# a test skill\nname: ${name}\nversion: 1.0.0\ndescription: A test skill.\nentry_point: index.mjs\nauthor: tests\n`,
  );
  const tools = options.tools ?? [toolSource(`${name.replace(/-/g, '_')}_hello`)];
  writeFileSync(
    join(dir, 'index.mjs'),
    `import { words } from './lib/words.mjs';\nexport default ({ defineTool, z }) => [\n  ${tools.join(',\n  ')},\n];\n`,
  );
  writeFileSync(join(dir, 'lib', 'words.mjs'), 'export const words = (what, who) => `${what} to ${who}`;\n');
  return dir;
}

/** Signs a skill folder with `secret`, as `kazma hub sign` does. */
export function sign(dir: string, secret = SECRET): void {
  writeSignature(dir, signSkill(dir, readManifest(dir), secret));
}

/** Writes `<root>/<folder>/SKILL.md` with the given front matter name and body; returns the folder. */
export function writeAgentSkill(
  root: string,
  folder: string,
  options: { name?: string; text?: string; body?: string } = {},
): string {
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'SKILL.md'),
    options.text ??
      `---\nname: ${options.name ?? folder}\ndescription: Use when writing ${folder}.\nallowed-tools: read_file write_file\n---\n${options.body ?? `# ${folder}\n\nAlways start with a haiku.\n`}`,
  );
  return dir;
}
