// What the log says at start about each skill and Agent Skill: a refused skill with its reason (and its
// tools not registered), an unsigned one with a warning, a renamed tool, a malformed SKILL.md with its
// error — and none of them stops the start.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { createAgentSkills } from '../../src/core/skills/agent/module.ts';
import { createSkills } from '../../src/core/skills/module.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { SECRET, sign, skillsRoot, toolSource, writeAgentSkill, writeSkill } from './skill-folders.ts';

const root = skillsRoot();
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('skills in the log', () => {
  it('names each refusal, warning and rename; a broken skill or SKILL.md does not stop the start', async () => {
    sign(writeSkill(join(root, 'skills'), 'good', { tools: [toolSource('read_file')] }));
    sign(writeSkill(join(root, 'skills'), 'unkeyed'), 'another-key-0123456789');
    writeSkill(join(root, 'skills'), 'draft');
    writeSkill(join(root, 'skills'), 'bad', { yaml: 'entry_point: index.mjs\n' });
    writeAgentSkill(join(root, 'agent'), 'broken', { text: 'no front matter\n' });
    const loaded = parseConfig(
      JSON.stringify({
        data_dir: join(root, 'data'),
        skills: { paths: ['./skills'], agent_paths: ['./agent'], allow_unsigned: ['draft'] },
      }),
      { env: { KAZMA_SECRET: SECRET }, baseDir: root },
    );
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk) => (text += chunk));
    const logger = createLogger({ level: 'info', pretty: false, destination: out });
    const database = await freshDatabase('pglite');
    const registry = new ToolRegistry();
    registry.register({ ...toolFrom('read_file') });
    try {
      createAgentSkills({ loaded, logger, clock: systemClock });
      const skills = await createSkills({ loaded, db: database.db, registry, logger });
      skills.stop();
      await new Promise((r) => setImmediate(r));
      const lines = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const about = (skill: string) =>
        lines
          .filter((l) => l.skill === skill || l.agentSkill === skill)
          .map((l) => [l.level, l.msg, l.reason ?? l.warning ?? l.error ?? l.as]);
      expect(about('unkeyed')).toEqual([
        [
          50,
          'skill refused: its tools are not offered to the model',
          'its signature does not match KAZMA_SECRET: it was signed with another key or altered',
        ],
      ]);
      expect(about('draft')).toEqual([
        [
          40,
          'skill loaded unsigned',
          expect.stringContaining(
            'no checksum or signature, so nothing vouches for its code; allowed unsigned by skills.allow_unsigned',
          ),
        ],
        [30, 'skill loaded', undefined],
      ]);
      expect(about('bad')).toEqual([[50, 'skill not loaded', expect.stringContaining('name: ')]]);
      expect(about('good')).toEqual([
        [30, 'skill tool renamed: its name is taken (a skill never replaces a built-in)', 'skill__good__read_file'],
        [30, 'skill loaded', undefined],
      ]);
      expect(about('broken')).toEqual([
        [
          40,
          'Agent Skill not usable: its SKILL.md is malformed',
          'SKILL.md: no front matter: SKILL.md must start with a --- block holding name and description',
        ],
      ]);
      expect(
        registry
          .list()
          .map((t) => t.name)
          .sort(),
      ).toEqual(['draft_hello', 'read_file', 'skill__good__read_file']);
    } finally {
      await database.dispose();
    }
  });
});

function toolFrom(name: string) {
  return {
    name,
    description: 'the built-in',
    input: { safeParse: () => ({ success: true }) } as never,
    effects: false,
    outside: false,
    tier: 'safe' as const,
    run: async () => 'built-in',
  };
}
