// Signed means every byte that can run is covered: the checksum seals the skill's whole folder (its own
// node_modules, files loaded by a computed import() or createRequire, skill.yaml's fields), a symlink
// leading out of the folder is refused, the code runs from a content-addressed copy of the sealed bytes
// (a change after the check cannot run), and an unsigned skill loads only when the operator allows it
// by name. Real files in temp folders, real imports.
import { appendFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectSkill } from '../../src/core/skills/inventory.ts';
import { importSkillTools } from '../../src/core/skills/load.ts';
import { SECRET, sign, skillsRoot, writeHiddenLoads, writeSkill } from './skill-folders.ts';

const root = skillsRoot();
const cache = join(root, 'cache');
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const hidden = (concat = false) => {
  const dir = writeSkill(root, `h${++n}`);
  writeHiddenLoads(dir, { concat });
  sign(dir);
  return dir;
};
const tampered = 'its code does not match its checksum: it may have been tampered with';

describe('the checksum seals the whole folder', () => {
  it('a signed skill with hidden loads verifies, and its tool runs', async () => {
    const dir = hidden();
    const report = inspectSkill(dir, SECRET);
    expect(report).toMatchObject({ status: 'verified' });
    const [tool] = await importSkillTools(report, cache);
    expect(await tool!.run({}, {} as never)).toBe('sealed sealed sealed');
  });

  it.each([
    ["a file in the skill's node_modules", 'node_modules/helper/index.js'],
    ['a file loaded by import() of a computed name', 'lib/computed.mjs'],
    ['a file loaded through createRequire', 'lib/required.cjs'],
    ['a file nothing loads yet', 'lib/words.mjs'],
  ])('%s changed after signing: refused', (_, file) => {
    const dir = hidden(true);
    appendFileSync(join(dir, file), '\n// changed\n');
    expect(inspectSkill(dir, SECRET)).toMatchObject({ status: 'refused', note: tampered });
  });

  it('a file added after signing, and a changed entry_point in skill.yaml: refused', () => {
    const added = hidden();
    writeFileSync(join(added, 'lib', 'new.mjs'), 'export {};\n');
    expect(inspectSkill(added, SECRET)).toMatchObject({ status: 'refused', note: tampered });
    const moved = hidden();
    writeFileSync(
      join(moved, 'skill.yaml'),
      readFileSync(join(moved, 'skill.yaml'), 'utf8').replace('entry_point: index.mjs', 'entry_point: lib/words.mjs'),
    );
    expect(inspectSkill(moved, SECRET)).toMatchObject({ status: 'refused', note: tampered });
  });

  it("a symlink out of the folder is refused; one inside is sealed by its target's content", () => {
    const outside = join(root, 'outside.mjs');
    writeFileSync(outside, 'export const x = 1;\n');
    const out = writeSkill(root, `h${++n}`);
    symlinkSync(outside, join(out, 'lib', 'elsewhere.mjs'));
    expect(inspectSkill(out, undefined, [out.split('/').at(-1)!])).toMatchObject({
      status: 'refused',
      note: expect.stringContaining('lib/elsewhere.mjs is a symlink to outside the skill folder'),
    });
    const inside = writeSkill(root, `h${++n}`);
    symlinkSync('words.mjs', join(inside, 'lib', 'alias.mjs'));
    sign(inside);
    expect(inspectSkill(inside, SECRET)).toMatchObject({ status: 'verified' });
    appendFileSync(join(inside, 'lib', 'words.mjs'), '// changed\n');
    expect(inspectSkill(inside, SECRET)).toMatchObject({ status: 'refused', note: tampered });
  });
});

describe('the code runs from the sealed bytes', () => {
  it.each([
    [
      'the entry module',
      'index.mjs',
      "export default ({ defineTool, z }) => [defineTool({ name: 'hidden', description: 'x', tier: 'safe', " +
        "effects: false, outside: false, input: z.object({}), run: async () => 'tampered' })];\n",
    ],
    ['a package in node_modules', 'node_modules/helper/index.js', "export const fromPackage = 'tampered';\n"],
    ['a computed import', 'lib/computed.mjs', "export const fromComputed = 'tampered';\n"],
    ['a createRequire', 'lib/required.cjs', "module.exports = { fromRequire: 'tampered' };\n"],
  ])('%s changed after the check does not run', async (_, file, text) => {
    const dir = hidden();
    const report = inspectSkill(dir, SECRET);
    expect(report.status).toBe('verified');
    writeFileSync(join(dir, file), text);
    const [tool] = await importSkillTools(report, cache);
    expect(await tool!.run({}, {} as never)).toBe('sealed sealed sealed');
  });
});

describe('unsigned skills load only when the operator allows them by name', () => {
  const strip = (dir: string) =>
    writeFileSync(
      join(dir, 'skill.yaml'),
      readFileSync(join(dir, 'skill.yaml'), 'utf8').replace(/^(checksum|signature):.*\n/gm, ''),
    );

  it('checksum and signature stripped while KAZMA_SECRET is set: refused, unless allowed by name', () => {
    const dir = hidden();
    strip(dir);
    const name = dir.split('/').at(-1)!;
    expect(inspectSkill(dir, SECRET)).toMatchObject({
      status: 'refused',
      note: expect.stringContaining('skills.allow_unsigned'),
    });
    expect(inspectSkill(dir, SECRET, ['another'])).toMatchObject({ status: 'refused' });
    expect(inspectSkill(dir, SECRET, [name])).toMatchObject({
      status: 'unsigned',
      note: expect.stringContaining('allowed unsigned by skills.allow_unsigned'),
    });
  });

  it('without KAZMA_SECRET too: an unsigned skill is refused unless allowed', () => {
    const dir = writeSkill(root, `h${++n}`);
    mkdirSync(join(dir, 'more'));
    expect(inspectSkill(dir, undefined)).toMatchObject({
      status: 'refused',
      note: expect.stringContaining('skills.allow_unsigned'),
    });
    expect(inspectSkill(dir, undefined, [dir.split('/').at(-1)!])).toMatchObject({ status: 'unsigned' });
  });
});
