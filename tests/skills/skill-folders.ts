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

/**
 * Adds code to a skill that its entry module loads in ways no scan of import statements can follow: a
 * package in its own node_modules, an `import()` of a computed name, and `createRequire`. Each file
 * answers 'sealed'; the test then changes one to see whether the change can run. `concat` writes the
 * computed import as `import('./lib/computed.mjs' + '')`, which no import scan follows (vitest's module
 * runner cannot resolve it either, so such a skill is checked, not run, in-process).
 */
export function writeHiddenLoads(dir: string, options: { concat?: boolean } = {}): void {
  mkdirSync(join(dir, 'node_modules', 'helper'), { recursive: true });
  writeFileSync(
    join(dir, 'node_modules', 'helper', 'package.json'),
    '{"name":"helper","type":"module","exports":"./index.js"}\n',
  );
  writeFileSync(join(dir, 'node_modules', 'helper', 'index.js'), "export const fromPackage = 'sealed';\n");
  writeFileSync(join(dir, 'lib', 'computed.mjs'), "export const fromComputed = 'sealed';\n");
  writeFileSync(join(dir, 'lib', 'required.cjs'), "module.exports = { fromRequire: 'sealed' };\n");
  writeFileSync(
    join(dir, 'index.mjs'),
    [
      "import { createRequire } from 'node:module';",
      "import { fromPackage } from 'helper';",
      options.concat
        ? "const { fromComputed } = await import('./lib/computed.mjs' + '');"
        : "const { fromComputed } = await import(new URL('./lib/computed.mjs', import.meta.url).href);",
      "const { fromRequire } = createRequire(import.meta.url)('./lib/required.cjs');",
      "export default ({ defineTool, z }) => [defineTool({ name: 'hidden', description: 'Says what ran.', tier: 'safe',",
      "  effects: false, outside: false, input: z.object({}), run: async () => [fromPackage, fromComputed, fromRequire].join(' ') })];",
      '',
    ].join('\n'),
  );
}
