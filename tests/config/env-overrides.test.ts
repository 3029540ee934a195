// The well-known environment variables apply whatever kazma.yaml says (environment > file > default), for a
// file that never mentions them too; an Anthropic key only reaches an Anthropic model; an empty variable
// changes nothing; an error about the value names the variable it came from.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/config/index.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { ENV_OVERRIDES } from '../../src/core/config/env-overrides.ts';

const parse = (text: string, env: Record<string, string>) =>
  parseConfig(text, { env: { PATH: '/usr/bin', ...env }, baseDir: '/tmp/kazma-env-test' });

describe('environment variables over kazma.yaml', () => {
  it('each applies to its key whatever the file says, and is recorded as the key’s source', () => {
    const file = `
model: { name: from-file, api_key: file-key, base_url: "http://file.example/v1" }
telegram: { token: file-token }
database: { url: "postgres://file@127.0.0.1/file" }
`;
    const loaded = parse(file, {
      KAZMA_MODEL: 'gpt-4o-mini',
      OPENAI_API_KEY: 'sk-env',
      OPENAI_BASE_URL: 'http://env.example/v1',
      TELEGRAM_TOKEN: '123:env',
      SLACK_BOT_TOKEN: 'xoxb-env',
      SLACK_SIGNING_SECRET: 'signing-env',
      SLACK_APP_TOKEN: 'xapp-env',
      DISCORD_TOKEN: 'discord-env',
      DATABASE_URL: 'postgres://env@127.0.0.1/env',
      REDIS_URL: 'redis://127.0.0.1:6390',
      KAZMA_API_TOKEN: 'api-token-from-the-environment',
      TELEGRAM_WEBHOOK_SECRET: 'env_secret',
    });
    const { config } = loaded;
    expect(config.model).toMatchObject({ name: 'gpt-4o-mini', api_key: 'sk-env', base_url: 'http://env.example/v1' });
    expect(config.telegram.token).toBe('123:env');
    expect(config.telegram.webhook_secret).toBe('env_secret');
    expect([config.slack.token, config.slack.signing_secret, config.slack.app_token]).toEqual([
      'xoxb-env',
      'signing-env',
      'xapp-env',
    ]);
    expect(config.discord.token).toBe('discord-env');
    expect(config.database.url).toBe('postgres://env@127.0.0.1/env');
    expect(config.redis.url).toBe('redis://127.0.0.1:6390');
    expect(config.http.api_token).toBe('api-token-from-the-environment');
    // Every variable of the table was exercised here, and each is named as its key's source.
    for (const { variable, key, provider } of ENV_OVERRIDES)
      if (provider !== 'anthropic') expect(loaded.sources?.[key], variable).toBe(variable);
  });

  it('applies to an empty file too, and an empty variable changes nothing', () => {
    expect(parse('', { KAZMA_MODEL: 'llama3.1' }).config.model.name).toBe('llama3.1');
    expect(parse('model: { name: kept }', { KAZMA_MODEL: '' }).config.model.name).toBe('kept');
  });

  it('an Anthropic key goes only to an Anthropic model, an OpenAI key only to an OpenAI one', () => {
    const env = { OPENAI_API_KEY: 'sk-openai', ANTHROPIC_API_KEY: 'sk-ant' };
    expect(parse('model: { provider: anthropic, name: claude }', env).config.model.api_key).toBe('sk-ant');
    expect(parse('model: { name: gpt }', env).config.model.api_key).toBe('sk-openai');
  });

  it('a bad value from a variable is reported with the key and fails validation as the file’s would', () => {
    let error: unknown;
    try {
      parse('', { TELEGRAM_WEBHOOK_SECRET: 'not a secret!' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(String((error as Error).message)).toMatch(/telegram\.webhook_secret/);
  });
});
