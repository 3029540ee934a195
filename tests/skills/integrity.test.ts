// Skill integrity, fail-closed: a signed skill verifies; every way its code or its signature can be wrong
// refuses it with a reason naming what; an unsigned skill loads, with a warning, only when allowed by name.
// Real files in temp folders, hashed and signed as `kazma hub sign` does.
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { skillFiles } from '../../src/core/skills/checksum.ts';
import { inspectSkill, inspectSkills } from '../../src/core/skills/inventory.ts';
import { freeName, skillToolName } from '../../src/core/skills/names.ts';
import { sameDigest } from '../../src/core/skills/signature.ts';
import { SECRET, sign, skillsRoot, writeSkill } from './skill-folders.ts';

const root = skillsRoot();
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = (signed = true) => {
  const dir = writeSkill(root, `s${++n}`);
  if (signed) sign(dir);
  return dir;
};
const stripSignature = (dir: string) =>
  writeFileSync(join(dir, 'skill.yaml'), readFileSync(join(dir, 'skill.yaml'), 'utf8').replace(/^signature:.*\n/m, ''));

describe('skill integrity', () => {
  it('a signed skill is verified; the checksum covers every file of the folder and skill.yaml', () => {
    const dir = fresh();
    expect(inspectSkill(dir, SECRET)).toMatchObject({ status: 'verified', manifest: { version: '1.0.0' } });
    expect(skillFiles(dir)).toEqual(['index.mjs', 'lib/words.mjs', 'skill.yaml']);
    // Signing keeps the rest of skill.yaml, comments included.
    expect(readFileSync(join(dir, 'skill.yaml'), 'utf8')).toMatch(
      /^# a test skill\n[\s\S]*checksum: [0-9a-f]{64}\nsignature: [0-9a-f]{64}\n$/,
    );
  });

  it.each([
    ['a tampered entry module', 'index.mjs'],
    ['a tampered imported file', 'lib/words.mjs'],
  ])('%s is refused: it may have been tampered with', (_, file) => {
    const dir = fresh();
    appendFileSync(join(dir, file), '\n// one more line\n');
    expect(inspectSkill(dir, SECRET)).toMatchObject({
      status: 'refused',
      note: 'its code does not match its checksum: it may have been tampered with',
    });
  });

  it('a signed skill without KAZMA_SECRET is refused', () => {
    expect(inspectSkill(fresh(), undefined)).toMatchObject({
      status: 'refused',
      note: 'it is signed, but KAZMA_SECRET is not set, so its signature cannot be checked',
    });
  });

  it('a signature made with another key is refused', () => {
    expect(inspectSkill(fresh(), 'another-secret-0123456789')).toMatchObject({
      status: 'refused',
      note: 'its signature does not match KAZMA_SECRET: it was signed with another key or altered',
    });
  });

  it('a stripped signature while KAZMA_SECRET is set is refused; without a secret it is unsigned only when allowed', () => {
    const dir = fresh();
    stripSignature(dir);
    const name = dir.split('/').at(-1)!;
    expect(inspectSkill(dir, SECRET, [name])).toMatchObject({
      status: 'refused',
      note: expect.stringContaining(
        'has a checksum but no signature while KAZMA_SECRET is set: the signature may have been stripped',
      ),
    });
    expect(inspectSkill(dir, undefined)).toMatchObject({
      status: 'refused',
      note: expect.stringContaining('skills.allow_unsigned'),
    });
    expect(inspectSkill(dir, undefined, [name])).toMatchObject({ status: 'unsigned' });
  });

  it('a skill with no checksum at all loads with a warning when allowed by name, secret or not', () => {
    const dir = fresh(false);
    for (const secret of [SECRET, undefined]) {
      expect(inspectSkill(dir, secret, [dir.split('/').at(-1)!])).toMatchObject({
        status: 'unsigned',
        note: expect.stringContaining('no checksum or signature'),
      });
      expect(inspectSkill(dir, secret)).toMatchObject({
        status: 'refused',
        note: expect.stringContaining('no checksum or signature'),
      });
    }
  });

  it('a signature without a checksum is refused', () => {
    const noChecksum = fresh();
    writeFileSync(
      join(noChecksum, 'skill.yaml'),
      readFileSync(join(noChecksum, 'skill.yaml'), 'utf8').replace(/^checksum:.*\n/m, ''),
    );
    expect(inspectSkill(noChecksum, SECRET)).toMatchObject({
      status: 'refused',
      note: expect.stringContaining('signature but no checksum'),
    });
  });

  it('a malformed skill.yaml fails with the field and why; the other skills are still found', () => {
    const local = skillsRoot();
    try {
      writeSkill(local, 'bad', { yaml: 'name: Bad Name\nentry_point: ../outside.js\n' });
      writeSkill(local, 'broken-yaml', { yaml: 'name: [unclosed\n' });
      sign(writeSkill(local, 'good'));
      const reports = inspectSkills({ paths: [local], dataDir: join(local, 'no-data'), autoDiscover: true }, SECRET);
      expect(reports.map((r) => [r.name, r.status])).toEqual([
        ['bad', 'failed'],
        ['broken-yaml', 'failed'],
        ['good', 'verified'],
      ]);
      expect(reports[0]!.note).toMatch(
        /name: expected 1-32 lower-case letters.*entry_point: expected a path inside the skill folder/,
      );
      expect(reports[1]!.note).toContain('(yaml)');
      // auto_discover off: only a path that is a skill folder itself.
      expect(inspectSkills({ paths: [local], dataDir: join(local, 'no-data'), autoDiscover: false }, SECRET)).toEqual(
        [],
      );
      expect(
        inspectSkills({ paths: [join(local, 'good')], dataDir: join(local, 'no-data'), autoDiscover: false }, SECRET),
      ).toMatchObject([{ name: 'good' }]);
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  });
});

describe('skill tool names and digests', () => {
  it('a free name is kept; a taken or reserved one is namespaced; none when both are taken', () => {
    expect(freeName('weather', 'forecast', new Set(['read_file']))).toBe('forecast');
    expect(freeName('weather', 'read_file', new Set(['read_file']))).toBe('skill__weather__read_file');
    expect(freeName('weather', 'mcp__x__y', new Set())).toBe('skill__weather__mcp__x__y');
    expect(freeName('weather', 'read_file', new Set(['read_file', 'skill__weather__read_file']))).toBeUndefined();
    expect(skillToolName('w', 'x'.repeat(80))).toMatch(/^skill__w__x+_[0-9a-f]{8}$/);
    expect(skillToolName('w', 'x'.repeat(80))).toHaveLength(64);
  });

  it('digests compare equal only when the same, whatever their length', () => {
    expect(sameDigest('ab'.repeat(32), 'ab'.repeat(32))).toBe(true);
    expect(sameDigest('ab'.repeat(32), 'ac'.repeat(32))).toBe(false);
    expect(sameDigest('ab'.repeat(32), 'ab'.repeat(16))).toBe(false);
    expect(sameDigest('', '')).toBe(false);
  });
});
