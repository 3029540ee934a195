// Installing an Agent Skill never runs the package's code on the host: a local package whose `prepare`
// and `prepack` scripts write a marker file is installed by an operator (a folder, `file:`, `git+file:`)
// with no marker left behind; the model's install_agent_skill refuses every local source with a typed
// error before anything is spawned; a registry package still installs (from a local fake registry).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installAgentSkill } from '../../src/core/skills/agent/install.ts';
import { agentSkillTools } from '../../src/core/skills/agent/tools.ts';
import { startFakeNpmRegistry, type FakeNpmRegistry } from '../fakes/npm-registry.ts';
import { SECRET, skillsRoot } from './skill-folders.ts';

const root = skillsRoot();
const marker = join(root, 'MARKER');
const env = { PATH: process.env.PATH, HOME: join(root, 'home') };
let registry: FakeNpmRegistry;

/** A package holding a SKILL.md whose lifecycle scripts each write the marker when run. */
function scriptedPackage(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const touch = `node -e "require('fs').writeFileSync(process.argv[1], 'ran')" ${JSON.stringify(marker)}`;
  const scripts = {
    prepare: touch,
    prepack: touch,
    postpack: touch,
    preinstall: touch,
    install: touch,
    postinstall: touch,
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', scripts }));
  writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: Use when testing scripts.\n---\n# ${name}\n`);
  return dir;
}

function gitRepo(dir: string): string {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      cwd: dir,
      env: { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
  git('init', '--quiet');
  git('add', '.');
  git('commit', '--quiet', '-m', 'skill');
  return dir;
}

beforeAll(async () => {
  mkdirSync(env.HOME, { recursive: true });
  registry = await startFakeNpmRegistry();
  registry.publish(scriptedPackage(join(root, 'registry-src'), 'from-registry'));
});
afterAll(async () => {
  await registry.close();
  rmSync(root, { recursive: true, force: true });
});

describe('an operator installs local packages with their scripts off', () => {
  const installs = join(root, 'operator');
  it.each([
    ['a file: package', (dir: string) => `file:${dir}`],
    ['a git+file: repository', (dir: string) => `git+file://${gitRepo(dir)}`],
    ['a file:// repository', (dir: string) => `file://${gitRepo(dir)}`],
    ['a folder', (dir: string) => dir],
  ])('%s: installed, and no script of it ran', async (_, spec) => {
    rmSync(marker, { force: true });
    const dir = scriptedPackage(join(root, `pkg-${Math.random().toString(36).slice(2)}`), 'scripted');
    const done = await installAgentSkill({ source: spec(dir), root: installs, secret: SECRET, env, local: true });
    expect(done.name).toBe('scripted');
    expect(existsSync(join(done.dir, 'SKILL.md'))).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the model cannot install from this machine's files", () => {
  const install = (source: string) =>
    installAgentSkill({ source, root: join(root, 'model'), secret: SECRET, env, local: false });
  it.each([
    ['file:<dir>', (dir: string) => `file:${dir}`],
    ['git+file://<repo>', (dir: string) => `git+file://${gitRepo(dir)}`],
    ['file://<dir>', (dir: string) => `file://${dir}`],
    ['<dir>', (dir: string) => dir],
    ['<dir>/../<dir>', (dir: string) => `${dir}/../${dir.split('/').at(-1)}`],
    ['./scripted', () => './scripted'],
    ['scripted.tgz', () => 'scripted.tgz'],
    ['alias@npm:scripted', () => 'alias@npm:scripted'],
  ])('refuses %s with a typed error, spawning nothing', async (_, spec) => {
    rmSync(marker, { force: true });
    const dir = scriptedPackage(join(root, `pkg-${Math.random().toString(36).slice(2)}`), 'scripted');
    const refused = await install(spec(dir)).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'agent_skill_source_refused',
      message: expect.stringContaining('kazma agent-skills install'),
    });
    expect(existsSync(marker)).toBe(false);
  });

  it("install_agent_skill goes through the model's rules: a local path is refused", async () => {
    const dir = scriptedPackage(join(root, 'for-tool'), 'scripted');
    const tools = agentSkillTools({ scan: () => [], install: (source) => install(source) });
    const tool = tools.find((t) => t.name === 'install_agent_skill')!;
    await expect(tool.run({ source: `file:${dir}` }, {} as never)).rejects.toMatchObject({
      code: 'agent_skill_source_refused',
    });
    expect(existsSync(marker)).toBe(false);
  });

  it('a registry package installs, its scripts off', async () => {
    rmSync(marker, { force: true });
    const done = await installAgentSkill({
      source: 'from-registry@1.0.0',
      root: join(root, 'model'),
      secret: SECRET,
      local: false,
      env: { ...env, npm_config_registry: registry.url },
    });
    expect(done.name).toBe('from-registry');
    expect(registry.requests).toContain('from-registry');
    expect(existsSync(marker)).toBe(false);
  });
});
