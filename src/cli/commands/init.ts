import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { xdgDataDir } from '../../core/config/index.ts';
import { EXIT, explain, type Subcommand } from '../common.ts';
import { INIT_OPTIONS, InitUsageError, operatorIds } from '../init/answers.ts';
import { gather, InitCheckError } from '../init/flow.ts';
import { Prompter } from '../init/prompter.ts';
import { storeSecrets } from '../init/store.ts';

const USAGE = `Usage: kazma init [--config FILE] [--force] [--yes] [flags below]

Sets Kazma up: asks for the model and the platforms, checks each key and token as kazma doctor does, stores
them in the vault (its key in <data_dir>/vault.key, mode 0600, unless KAZMA_VAULT_KEY is set), writes a
commented kazma.yaml pointing at them (vault://…) and says what to do next. An existing file is kept
unless --force. Answers may be typed, piped (one per line) or given as flags:
  --yes, --non-interactive     ask nothing: only the flags (a platform is set up when its token is given)
  --provider openai|anthropic  --model NAME  --base-url URL  --api-key KEY
  --telegram-token T  [--telegram-api-root URL]
  --slack-bot-token T  --slack-signing-secret S | --slack-app-token T (Socket Mode)  [--slack-api-url URL]
  --discord-token T  [--discord-application-id ID]  [--discord-api URL]
  --operator NAME  --operator-id <platform>:<id> (repeatable): you, as the first operator
  --data-dir DIR  (default: ./kazma-data in a Kazma checkout, else $XDG_DATA_HOME/kazma or
                   ~/.local/share/kazma)   --http-port N (default 8787)   --skip-checks   --force`;

export const init: Subcommand = {
  summary: 'set Kazma up: model, platforms and tokens (checked), the vault, you as operator; writes kazma.yaml',
  usage: USAGE,
  async run(args) {
    const { values: flags } = parseArgs({ args, options: INIT_OPTIONS });
    const path = resolve(flags.config ?? 'kazma.yaml');
    const shown = relative(process.cwd(), path) || path;
    if (existsSync(path) && !flags.force) {
      process.stderr.write(
        `kazma init: ${shown} exists and was left as it is; replace it with kazma init --force, or write another ` +
          `file with kazma init --config FILE\n`,
      );
      return EXIT.usage;
    }
    const ask = flags.yes || flags['non-interactive'] ? undefined : new Prompter(process.stdin, process.stdout);
    const out = (line: string) => console.log(line);
    try {
      const port = Number(flags['http-port'] ?? 8787);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new InitUsageError(`--http-port must be a port number (0-65535), not "${flags['http-port']}"`);
      const ids = operatorIds(flags['operator-id'] ?? []);
      const gathered = await gather({ flags, ask, port, out });
      const name =
        flags.operator ?? (ask ? await ask.ask('Your name, as the first operator', { fallback: defaultName() }) : '');
      for (const platform of gathered.platforms)
        if (ask && !ids[platform]) {
          const id = await ask.ask(`Your ${platform} user id, if you know it (empty: you get a code to send the bot)`);
          if (id) ids[platform] = id;
        }
      const baseDir = dirname(path);
      const operatorName = name || defaultName();
      // Someone still to be recognised on a platform gets a code to send the bot, instead of editing the file.
      const unknownOn = gathered.platforms.filter((platform) => !ids[platform]);
      // Written as given: a relative path stays relative to the file's folder, as kazma.yaml reads it.
      const dataDir = flags['data-dir'] ?? defaultDataDir(baseDir);
      const stored = await storeSecrets({
        gathered,
        plan: { dataDir, port, operator: { name: operatorName, ids } },
        configPath: path,
        baseDir,
        env: { ...process.env },
        ...(unknownOn.length > 0 && { claimFor: operatorName }),
      });
      writeFileSync(path, stored.text);
      out(`✓ wrote ${shown}`);
      if (stored.secrets.length > 0)
        out(
          `✓ stored ${stored.secrets.join(', ')} in the vault, sealed with ` +
            (stored.key === 'env' || !stored.key
              ? 'KAZMA_VAULT_KEY: keep it set for kazma start'
              : `the key in ${stored.key.file}${stored.key.created ? ' (new, mode 0600)' : ''}: back it up, ` +
                'the secrets cannot be read without it'),
        );
      if (stored.claim) {
        const { code, hours } = stored.claim;
        out(
          `Make yourself the operator ${operatorName}: once Kazma runs, send the bot in a private message: ` +
            `/start ${code}   (once, within ${hours} hours; on ${unknownOn.join(', ')})`,
        );
        if (gathered.telegram?.username && unknownOn.includes('telegram'))
          out(`  On Telegram, open https://t.me/${gathered.telegram.username}?start=${code} and press Start.`);
      }
      for (const line of gathered.after) out(`Next: ${line}`);
      const here = path === resolve('kazma.yaml');
      out(`Start Kazma: kazma start${here ? '' : ` --config ${shown}`}   (check first: kazma doctor)`);
      return EXIT.ok;
    } catch (error) {
      if (error instanceof InitUsageError) {
        process.stderr.write(`kazma init: ${error.message}\n`);
        return EXIT.usage;
      }
      if (error instanceof InitCheckError) {
        process.stderr.write(`kazma init: ${error.message}\n`);
        return EXIT.failure;
      }
      return explain(error);
    } finally {
      ask?.close();
    }
  },
};

/** Who the person is, by their login name. */
function defaultName(): string {
  return process.env.USER || process.env.USERNAME || 'me';
}

/** `./kazma-data` beside the file in a Kazma checkout (as the tracked kazma.yaml has it); else XDG's. */
function defaultDataDir(baseDir: string): string {
  const manifest = join(baseDir, 'package.json');
  const checkout =
    existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'kazma';
  return checkout ? './kazma-data' : (xdgDataDir({ ...process.env }) ?? './kazma-data');
}
