// Where the data goes when kazma.yaml does not say: beside the file that was read (a checkout's
// ./kazma-data), or with no file at all (a global install run anywhere) the XDG data directory.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/index.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'kazma-datadir-'));

describe('the default data_dir', () => {
  it('is $XDG_DATA_HOME/kazma, else ~/.local/share/kazma, when no kazma.yaml is read', () => {
    const cwd = dir();
    expect(loadConfig({ cwd, env: { XDG_DATA_HOME: '/xdg', HOME: '/home/m' } }).config.data_dir).toBe('/xdg/kazma');
    expect(loadConfig({ cwd, env: { HOME: '/home/m' } }).config.data_dir).toBe('/home/m/.local/share/kazma');
    expect(loadConfig({ cwd, env: {} }).config.data_dir).toBe(join(cwd, 'kazma-data'));
  });

  it('stays ./kazma-data beside a kazma.yaml that sets none, and is what a file sets', () => {
    const cwd = dir();
    const env = { XDG_DATA_HOME: '/xdg', HOME: '/home/m' };
    writeFileSync(join(cwd, 'kazma.yaml'), 'log: { level: warn }\n');
    expect(loadConfig({ cwd, env }).config.data_dir).toBe(join(cwd, 'kazma-data'));
    writeFileSync(join(cwd, 'kazma.yaml'), 'data_dir: ./elsewhere\n');
    expect(loadConfig({ cwd, env }).config.data_dir).toBe(join(cwd, 'elsewhere'));
  });
});
