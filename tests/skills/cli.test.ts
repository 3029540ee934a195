// `kazma hub sign|validate|list|info|search` as a person runs them: the real CLI in child processes, on
// skill folders in a temp directory; and `kazma tools list|toggle` with skill packages (on a PGlite data dir).
// Each run costs a process start, so few runs.
import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKazma, writeConfig } from '../helpers/kazma-process.ts';
import { SECRET, sign, skillsRoot, toolSource, writeAgentSkill, writeSkill } from './skill-folders.ts';
import { seedPgliteDataDir } from '../helpers/databases.ts';

const root = skillsRoot();
const { path: config } = writeConfig(`data_dir: ./data\nskills:\n  paths: [./skills]\n`, root);
await seedPgliteDataDir(join(root, 'data'));
const skills = join(root, 'skills');
const greeter = writeSkill(skills, 'greeter', { tools: [toolSource('greet'), toolSource('stamp', { tier: 'write' })] });
const other = writeSkill(skills, 'other');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const kazma = (args: string[], env: Record<string, string | undefined> = {}) =>
  runKazma(args, {
    cwd: root,
    env: { KAZMA_SECRET: undefined, KAZMA_HUB_URL: undefined, KAZMA_CONFIG: undefined, ...env },
  });

describe('kazma hub', { timeout: 120_000 }, () => {
  it('sign needs a key; with --secret it writes checksum and signature; validate then says verified and lists the tools', async () => {
    const unkeyed = await kazma(['hub', 'sign', greeter]);
    expect(unkeyed.code).toBe(1);
    expect(unkeyed.stderr).toBe(
      'kazma: kazma hub sign needs a signing key: set KAZMA_SECRET (the key every Kazma of this install verifies with) or pass --secret\n',
    );
    const signed = await kazma(['hub', 'sign', greeter, '--secret', SECRET]);
    expect(signed).toMatchObject({ code: 0, stderr: '' });
    expect(signed.stdout).toMatch(
      /^signed greeter 1\.0\.0: checksum [0-9a-f]{12}… over index\.mjs, lib\/words\.mjs, skill\.yaml\n$/,
    );
    expect(readFileSync(join(greeter, 'skill.yaml'), 'utf8')).toMatch(
      /checksum: [0-9a-f]{64}\nsignature: [0-9a-f]{64}/,
    );
    const valid = await kazma(['hub', 'validate', greeter], { KAZMA_SECRET: SECRET });
    expect(valid).toMatchObject({
      code: 0,
      stdout: '🟢 greeter 1.0.0 — verified\n  greet (safe) — Says greet.\n  stamp (write) — Says stamp.\n',
    });
  });

  it('list shows each installed skill and why; info shows one; a tampered one is refused', async () => {
    appendFileSync(join(other, 'index.mjs'), '// unsigned, then changed: refused unless allowed by name\n');
    const list = await kazma(['hub', 'list', '--config', config], { KAZMA_SECRET: SECRET });
    expect(list).toMatchObject({
      code: 0,
      stdout:
        '🟢 greeter 1.0.0 — verified\n🔴 other 1.0.0 — refused: it has no checksum or signature, so nothing vouches for its code: sign it with kazma hub sign, or allow it by name in skills.allow_unsigned\n',
    });
    appendFileSync(join(greeter, 'lib/words.mjs'), '// tampered\n');
    const info = await kazma(['hub', 'info', 'greeter', '--config', config], { KAZMA_SECRET: SECRET });
    expect(info.code).toBe(0);
    expect(info.stdout).toContain(
      'state: refused (its code does not match its checksum: it may have been tampered with)',
    );
    expect(info.stdout).toContain('files: index.mjs, lib/words.mjs, skill.yaml');
    const validate = await kazma(['hub', 'validate', greeter], { KAZMA_SECRET: SECRET });
    expect(validate).toMatchObject({
      code: 1,
      stdout: '🔴 greeter 1.0.0 — refused: its code does not match its checksum: it may have been tampered with\n',
    });
  });

  it('validate on an Agent Skill (a SKILL.md folder) says what it is and points at kazma agent-skills', async () => {
    const agentSkill = writeAgentSkill(join(root, 'elsewhere'), 'haiku-writer');
    const validate = await kazma(['hub', 'validate', agentSkill]);
    expect(validate.stderr.trim()).toBe(
      `kazma: ${agentSkill} is an Agent Skill (SKILL.md), not a Kazma skill package (skill.yaml): install it with ` +
        `kazma agent-skills install ${agentSkill}; kazma agent-skills list says whether it loads`,
    );
    expect(validate.code).toBe(1);
  });

  it('search says plainly that no hub is configured, and asks the hub at KAZMA_HUB_URL when set', async () => {
    const none = await kazma(['hub', 'search', 'weather']);
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toBe(
      "kazma: no skill hub is configured: set KAZMA_HUB_URL to a hub's address to search it. Installed skills: kazma hub list.\n",
    );
    const asked: string[] = [];
    const hub = createServer((req, res) => {
      asked.push(req.url!);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify([{ name: 'weather', version: '2.1.0', description: 'Forecasts.' }]));
    });
    await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
    try {
      const found = await kazma(['hub', 'search', 'weather'], {
        KAZMA_HUB_URL: `http://127.0.0.1:${(hub.address() as AddressInfo).port}/api`,
      });
      expect(found).toMatchObject({ code: 0, stdout: 'weather 2.1.0 — Forecasts.\n' });
      expect(asked).toEqual(['/api/skills?q=weather']);
    } finally {
      hub.close();
    }
  });
});

describe('kazma agent-skills', { timeout: 120_000 }, () => {
  it('install from a folder (signed), sign again after an edit, list, remove', async () => {
    const source = writeAgentSkill(join(root, 'agent-src'), 'notes');
    const installed = join(root, 'data', 'agent-skills', 'notes');
    const keyed = { KAZMA_SECRET: SECRET };
    expect(await kazma(['agent-skills', 'install', source, '--config', config], keyed)).toMatchObject({
      code: 0,
      stdout: `installed Agent Skill "notes" in ${installed} (1 file, verified)\n`,
    });
    appendFileSync(join(installed, 'SKILL.md'), 'An edit the operator made and trusts.\n');
    expect(await kazma(['agent-skills', 'sign', 'notes', '--config', config], keyed)).toMatchObject({
      code: 0,
      stdout: `signed Agent Skill "notes" in ${installed}\n`,
    });
    const list = await kazma(['agent-skills', 'list', '--config', config], keyed);
    expect(list).toMatchObject({ code: 0, stdout: `🟢 notes — verified — Use when writing notes. — ${installed}\n` });
    expect(await kazma(['agent-skills', 'remove', 'notes', '--config', config], keyed)).toMatchObject({
      code: 0,
      stdout: 'removed Agent Skill "notes"\n',
    });
  });
});

describe('kazma tools with skill packages', { timeout: 180_000 }, () => {
  // A folder of its own: a verified skill, a tampered one, and one whose tool is named like a built-in.
  const home = skillsRoot();
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const { path: homeConfig } = writeConfig(
    `data_dir: ./data\nskills:\n  paths: [./skills]\n  allow_unsigned: [clash]\n`,
    home,
  );
  beforeAll(() => seedPgliteDataDir(join(home, 'data')));
  const weather = writeSkill(join(home, 'skills'), 'weather', {
    tools: [toolSource('forecast'), toolSource('storm_alert', { tier: 'write' })],
  });
  const broken = writeSkill(join(home, 'skills'), 'broken');
  writeSkill(join(home, 'skills'), 'clash', { tools: [toolSource('read_file')] });
  sign(weather);
  sign(broken);
  appendFileSync(join(broken, 'lib/words.mjs'), '// tampered\n');
  const tools = (args: string[]) =>
    runKazma(['tools', ...args, '--config', homeConfig], {
      cwd: home,
      env: { KAZMA_SECRET: SECRET, KAZMA_CONFIG: undefined },
    });

  it('list shows each skill with its verdict and switch, its tools not among the built-ins; toggle switches a skill whole', async () => {
    const list = await tools(['list']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    const [builtins, skillsPart] = list.stdout.split('Skills:\n');
    expect(skillsPart).toContain('🟢 weather 1.0.0 — verified — on — 2 tools\n');
    expect(skillsPart).toContain('🔴 broken 1.0.0 — refused: its code does not match its checksum');
    expect(skillsPart).toMatch(/🟡 clash 1\.0\.0 — unsigned — on — 1 tool: /);
    // The built-in read_file is listed once, as the built-in; the skills' tools are theirs, not the built-ins'.
    expect(builtins!.match(/ read_file —/g)).toHaveLength(1);
    expect(builtins).not.toMatch(/forecast|storm_alert|skill__clash/);

    expect(await tools(['toggle', 'Weather'])).toMatchObject({
      code: 0,
      stdout:
        'skill weather is off: its tools are not offered (saved; a running Kazma applies it within a few seconds)\n',
    });
    expect((await tools(['list'])).stdout).toContain('🟢 weather 1.0.0 — verified — off — 2 tools\n');
    const refused = await tools(['toggle', 'broken']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^kazma tools toggle: skill broken has no tools to switch: 🔴 broken 1\.0\.0 — refused/,
    );
    const typo = await tools(['toggle', 'weathr']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('Did you mean weather?');
  });
});
