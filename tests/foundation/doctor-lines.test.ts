// One DoctorCheck shape (src/core/doctor.ts) for `kazma doctor`'s own checks and every adapter's: a check
// resolves fine or with a warning and throws a failure, and each prints as the doctor printed it before
// (tests/foundation/doctor-model.test.ts runs the command itself).
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { discordChecks } from '../../src/adapters/discord/index.ts';
import { slackChecks } from '../../src/adapters/slack/index.ts';
import { telegramChecks } from '../../src/adapters/telegram/index.ts';
import { NO_MODEL } from '../../src/core/agent/index.ts';
import { parseConfig } from '../../src/core/config/index.ts';
import { type DoctorCheck, doctorLine, runDoctorCheck } from '../../src/core/doctor.ts';

const check = (run: DoctorCheck['run']): DoctorCheck => ({ name: 'redis', run });

describe('kazma doctor: one check shape, one line', () => {
  it('fine, a warning, a failure: the status, the detail and the fix, printed as before', async () => {
    const ok = await runDoctorCheck(check(async () => 'answers at 127.0.0.1:6379'));
    expect(ok).toEqual({ name: 'redis', status: 'ok', detail: 'answers at 127.0.0.1:6379' });
    expect(doctorLine(ok)).toBe('✓ redis: answers at 127.0.0.1:6379');

    const warned = await runDoctorCheck(check(async () => ({ status: 'warn', detail: 'slow', fix: 'Look' })));
    expect(warned).toEqual({ name: 'redis', status: 'warn', detail: 'slow', fix: 'Look' });
    expect(doctorLine(warned)).toBe('! redis: slow. Look');

    const failed = await runDoctorCheck(
      check(async () => {
        throw new Error('connection refused: is redis-server running?');
      }),
    );
    expect(failed).toEqual({ name: 'redis', status: 'fail', detail: 'connection refused: is redis-server running?' });
    expect(doctorLine(failed)).toBe('✗ redis: connection refused: is redis-server running?');
  });

  it('no model: the same line as before the split into detail and fix', async () => {
    const result = await runDoctorCheck({ name: 'model', run: async () => NO_MODEL });
    expect(doctorLine(result)).toBe(
      '! model: no model is configured, so every turn answers with how to set one. Set KAZMA_MODEL (e.g. ' +
        'gpt-4o-mini) and OPENAI_API_KEY in the environment — or OPENAI_BASE_URL for a local OpenAI-compatible ' +
        'server (Ollama, llama.cpp, vLLM); the tracked kazma.yaml reads them as model.name, model.api_key and ' +
        'model.base_url',
    );
  });

  it("every adapter's checks are DoctorChecks, named by platform, and a missing token is a failure", async () => {
    const { config } = parseConfig('{}', { env: {}, baseDir: tmpdir() });
    const all: DoctorCheck[] = [
      ...telegramChecks(config.telegram),
      ...discordChecks(config.discord),
      ...slackChecks(config.slack),
    ];
    expect(all.map((c) => c.name.split(' ')[0])).toEqual([
      'telegram',
      'telegram',
      'discord',
      'discord',
      'slack',
      'slack',
    ]);
    const tokens = all.filter((c) => c.name.endsWith(' token'));
    for (const token of tokens) expect(await runDoctorCheck(token)).toMatchObject({ status: 'fail' });
  });
});
