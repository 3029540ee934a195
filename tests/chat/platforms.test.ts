// The platform list is named once (src/core/surface/platforms.ts). Per-platform tables typed by it are
// checked by the compiler; this checks the places the compiler cannot see: adapter folders, the
// composition root's factories, the config schema, secret collection, access and card labels.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outcomeLine } from '../../src/core/approvals/card.ts';
import type { Gate } from '../../src/core/approvals/port.ts';
import { AccessPolicy } from '../../src/core/chat/intake/access.ts';
import { CHAT_PLATFORM_IDS, CHAT_PLATFORMS, PLATFORM_IDS, platformLabel } from '../../src/core/surface/platforms.ts';
import { configSchema, parseConfig } from '../../src/core/config/index.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

/** Surfaces that are not chat platforms: no kazma.yaml section, no token. */
const NOT_CHAT_PLATFORMS = ['console', 'http'];

const parse = (raw: unknown) => parseConfig(JSON.stringify(raw), { env: {}, baseDir: REPO_ROOT });

describe('the platform list, named once', () => {
  it('names every adapter folder under src/adapters (except console and http), and no other', () => {
    const folders = readdirSync(join(REPO_ROOT, 'src/adapters'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !NOT_CHAT_PLATFORMS.includes(e.name))
      .map((e) => e.name);
    expect([...folders].sort()).toEqual([...CHAT_PLATFORM_IDS].sort());
    expect(PLATFORM_IDS).toEqual([...CHAT_PLATFORM_IDS, 'console']);
  });

  it.each(CHAT_PLATFORM_IDS)(
    '%s: its adapter calls itself by that id, and the composition root loads it',
    async (id) => {
      const ids = (await import(`../../src/adapters/${id}/ids.ts`)) as { PLATFORM: string };
      expect(ids.PLATFORM).toBe(id);
      expect(readFileSync(join(REPO_ROOT, 'src/platforms.ts'), 'utf8')).toContain(`./adapters/${id}/index.ts`);
    },
  );

  it.each(PLATFORM_IDS)('%s: ChatRefs in kazma.yaml accept it', (id) => {
    const config = configSchema.parse({
      access: { users: [`${id}:U1`], chats: [`${id}:C1:T1`] },
      approvals: { channels: [`${id}:C2`] },
    });
    expect(config.access.users).toEqual([`${id}:U1`]);
  });

  it('a ChatRef naming an unknown platform is refused with the list of known ones', () => {
    const result = configSchema.safeParse({ access: { users: ['irc:U1'] } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(
      'expected <platform>:<chat>[:<thread>] with platform telegram, slack, discord or console',
    );
  });

  it('each platform is an operator key, and an operator is recognised there by that id', () => {
    const entry = Object.fromEntries(PLATFORM_IDS.map((id) => [id, `${id}-id`]));
    const config = configSchema.parse({ access: { operators: [{ name: 'maya', ...entry }] } });
    const access = new AccessPolicy({ access: config.access, approvals: config.approvals });
    for (const id of PLATFORM_IDS) expect(access.operatorOf({ platform: id, id: `${id}-id` })?.name, id).toBe('maya');
  });

  it('numeric ids are read as text where the platform says its ids are digits', () => {
    const numeric = CHAT_PLATFORM_IDS.filter((id) => CHAT_PLATFORMS[id].numericIds);
    const config = configSchema.parse({
      access: { operators: [{ name: 'maya', ...Object.fromEntries(numeric.map((id) => [id, 123])) }] },
    });
    for (const id of numeric) expect(config.access.operators[0]![id]).toBe('123');
    for (const id of CHAT_PLATFORM_IDS.filter((p) => !CHAT_PLATFORMS[p].numericIds)) {
      expect(configSchema.safeParse({ access: { operators: [{ name: 'maya', [id]: 123 }] } }).success, id).toBe(false);
    }
  });

  it.each(CHAT_PLATFORM_IDS)(
    '%s: kazma.yaml has its section, off by default, and every secret key it names is a text key there',
    (id) => {
      const section = configSchema.parse({})[id] as Record<string, unknown>;
      expect(section.enabled).toBe(false);
      for (const key of CHAT_PLATFORMS[id].secretKeys) expect(typeof section[key], `${id}.${key}`).toBe('string');
    },
  );

  it('every platform secret is collected, so logs and tool output mask it', () => {
    const raw = Object.fromEntries(
      CHAT_PLATFORM_IDS.map((id) => [
        id,
        Object.fromEntries(CHAT_PLATFORMS[id].secretKeys.map((key) => [key, `${id}-${key}-value`])),
      ]),
    );
    const { secrets } = parse(raw);
    for (const id of CHAT_PLATFORM_IDS) {
      for (const key of CHAT_PLATFORMS[id].secretKeys) expect(secrets, `${id}.${key}`).toContain(`${id}-${key}-value`);
    }
  });

  it.each(CHAT_PLATFORM_IDS)('%s: enabled without a token, config check names the key and the variable', (id) => {
    expect(() => parse({ [id]: { enabled: true } })).toThrow(
      `${id}.token: required when ${id}.enabled is true (set ${CHAT_PLATFORMS[id].tokenEnv} to `,
    );
  });

  it('cards name each platform by its label', () => {
    const gate = {
      state: 'settled',
      decision: 'once',
      decidedBy: 'maya',
      decidedAt: new Date('2026-01-01T12:03:00Z'),
    } as Gate;
    for (const id of CHAT_PLATFORM_IDS) {
      expect(outcomeLine({ ...gate, decidedPlatform: id })).toBe(
        `Approved once by maya on ${CHAT_PLATFORMS[id].label} at 12:03 UTC`,
      );
    }
    expect(platformLabel('console')).toBe('the console');
    expect(platformLabel('api')).toBe('the API');
    expect(platformLabel('matrix')).toBe('matrix');
    expect(platformLabel('toString')).toBe('toString');
  });
});
