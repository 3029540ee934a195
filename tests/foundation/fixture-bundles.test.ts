// Spawned fixtures run as the bundles global-setup built for this run, not through tsx (~3 s of CPU more
// per child), and a script outside a fixtures/ folder is refused instead of quietly paying that cost.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureSources } from '../helpers/fixture-bundles.ts';
import { fixtureArgs, UnbundledFixtureError } from '../helpers/fixtures.ts';

describe('test fixtures', () => {
  it('every fixture runs as its bundle, built for this run', () => {
    const sources = fixtureSources();
    expect(sources).toContain('tests/tasks/fixtures/worker-child.ts');
    for (const source of sources) {
      const args = fixtureArgs(source);
      expect(args, source).toHaveLength(1);
      expect(args[0], source).toMatch(/\/dist\/test-fixtures-[^/]+\/.*\.js$/);
      expect(existsSync(args[0]!), source).toBe(true);
    }
  });

  it('a TypeScript file outside fixtures/ is refused, naming where it belongs', () => {
    expect(() => fixtureArgs('tests/fakes/llm-server.ts')).toThrow(UnbundledFixtureError);
    expect(() => fixtureArgs('tests/fakes/llm-server.ts')).toThrow(/put it in a fixtures\/ folder/);
  });

  it('JavaScript runs as it is', () => {
    expect(fixtureArgs('bin/kazma.js')).toEqual(['bin/kazma.js']);
  });
});
