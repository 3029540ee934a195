// A workspace apart from what Kazma runs from: write_file and shell may change anything in the workspace,
// so one that holds data_dir, kazma.yaml's folder or a skills folder (or lies inside data_dir or a skills
// folder) is refused at start, naming tools.workspace and the fix. The default is ./kazma-workspace.
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/config/index.ts';
import { runKazma, writeConfig } from '../helpers/kazma-process.ts';

const fresh = () => realpathSync(mkdtempSync(join(tmpdir(), 'kazma-overlap-')));

/** Parses `config` as if read from `<dir>/kazma.yaml`; returns the error's message, or the workspace. */
function load(dir: string, config: Record<string, unknown>): string {
  try {
    const env = { PATH: process.env.PATH, HOME: '/nonexistent-home' };
    const loaded = parseConfig(JSON.stringify(config), { env, baseDir: dir, path: join(dir, 'kazma.yaml') });
    return loaded.config.tools.workspace;
  } catch (error) {
    return (error as Error).message;
  }
}

const FIX = /give the workspace a folder of its own, apart from these, e.g. tools\.workspace: \.\/kazma-workspace/;

describe('tools.workspace overlapping what Kazma runs from', () => {
  it('is refused when it contains data_dir, naming the key and the fix', () => {
    const dir = fresh();
    const said = load(dir, { data_dir: './ws/data', tools: { workspace: './ws' } });
    expect(said).toMatch(/tools\.workspace: \S+\/ws contains data_dir \(\S+\/ws\/data\): the tools could rewrite/);
    expect(said).toMatch(FIX);
  });

  it('is refused inside data_dir (the old default, <data_dir>/workspace)', () => {
    const said = load(fresh(), { data_dir: './data', tools: { workspace: './data/workspace' } });
    expect(said).toMatch(/is inside data_dir/);
  });

  it("is refused when it holds kazma.yaml's folder: write_file could add an operator", () => {
    const said = load(fresh(), { tools: { workspace: '.' } });
    expect(said).toMatch(/tools\.workspace: \S+ contains the folder of kazma\.yaml/);
  });

  it('is refused when it holds a skills folder, or lies inside one (skills.paths, skills.agent_paths)', () => {
    const dir = fresh();
    const holds = load(dir, { tools: { workspace: './ws' }, skills: { paths: ['./ws/skills'] } });
    expect(holds).toMatch(/contains the skills folder/);
    const inside = load(dir, { tools: { workspace: './sk/ws' }, skills: { agent_paths: ['./sk'] } });
    expect(inside).toMatch(/is inside the skills folder/);
  });

  it('sees through a symlink to data_dir', () => {
    const dir = fresh();
    mkdirSync(join(dir, 'data'));
    symlinkSync(join(dir, 'data'), join(dir, 'link'));
    expect(load(dir, { data_dir: './data', tools: { workspace: './link/ws' } })).toMatch(/is inside data_dir/);
  });

  it('accepts a folder of its own; unset, it is ./kazma-workspace beside kazma.yaml', () => {
    const dir = fresh();
    expect(load(dir, { tools: { workspace: './files' } })).toBe(join(dir, 'files'));
    expect(load(dir, {})).toBe(join(dir, 'kazma-workspace'));
  });

  it('stops `kazma start` with the reason', async () => {
    const { path } = writeConfig('tools: { workspace: "." }\nhttp: { port: 0 }\n');
    const result = await runKazma(['start', '--config', path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/tools\.workspace: \S+ contains the folder of kazma\.yaml/);
  });
});
