// Where `kazma init` puts what it was told: the secrets in the vault (its key in `<data_dir>/vault.key`,
// unless KAZMA_VAULT_KEY is set), and `vault://` pointers to them in kazma.yaml.
import { parseConfig } from '../../core/config/index.ts';
import { OperatorClaims } from '../../core/pairing/index.ts';
import { vaultPointer } from '../../core/secrets/index.ts';
import { ensureVaultKeyFile, Vault, VAULT_KEY_ENV, vaultKeyPath, vaultPassphrase } from '../../core/vault/index.ts';
import { openMigratedDatabase } from '../../storage.ts';
import type { Gathered } from './flow.ts';
import { type InitPlan, renderConfig } from './yaml.ts';

/** The vault names init stores each secret under. */
const NAMES = {
  model: 'model-api-key',
  telegram: 'telegram-token',
  slackToken: 'slack-bot-token',
  slackSigning: 'slack-signing-secret',
  slackApp: 'slack-app-token',
  discord: 'discord-token',
} as const;

/** What was stored, for the summary. */
export interface Stored {
  text: string;
  secrets: string[];
  /** How the vault's key is found: the file (created now or before) or the environment. */
  key: { file: string; created: boolean } | 'env' | undefined;
  /** The one-time code that makes its sender the operator, when one was asked for. */
  claim?: { code: string; hours: number };
}

/** How long an operator code of `kazma init` may be sent. */
const CLAIM_HOURS = 24;

/**
 * Stores the secrets of `gathered` and returns kazma.yaml's text pointing at them. Nothing is stored when
 * the text would not be a valid configuration.
 */
export async function storeSecrets(options: {
  gathered: Gathered;
  plan: Omit<InitPlan, 'model' | 'telegram' | 'slack' | 'discord' | 'vaultKey'>;
  configPath: string;
  baseDir: string;
  env: Record<string, string | undefined>;
  /** Issue a one-time code that makes its sender this operator. */
  claimFor?: string;
}): Promise<Stored> {
  const { gathered: g, plan, env } = options;
  const secrets: Record<string, string> = {};
  const keep = (name: string, value: string) => {
    if (value === '' || value.startsWith('vault://')) return value;
    secrets[name] = value;
    return vaultPointer(name);
  };
  const fromEnv = Boolean(env[VAULT_KEY_ENV]);
  const full: InitPlan = {
    ...plan,
    vaultKey: fromEnv ? `the passphrase in ${VAULT_KEY_ENV}` : `the key in ${vaultKeyPath(plan.dataDir)} (mode 0600)`,
    model: { ...g.model, apiKey: keep(NAMES.model, g.model.apiKey) },
    ...(g.telegram && { telegram: { token: keep(NAMES.telegram, g.telegram.token), apiRoot: g.telegram.apiRoot } }),
    ...(g.slack && {
      slack: {
        ...g.slack,
        token: keep(NAMES.slackToken, g.slack.token),
        signingSecret: keep(NAMES.slackSigning, g.slack.signingSecret),
        appToken: keep(NAMES.slackApp, g.slack.appToken),
      },
    }),
    ...(g.discord && { discord: { ...g.discord, token: keep(NAMES.discord, g.discord.token) } }),
  };
  const text = renderConfig(full);
  // Throws ConfigError naming the key when the answers do not make a valid file: before anything is stored.
  const loaded = parseConfig(text, { env, baseDir: options.baseDir, path: options.configPath });
  const names = Object.keys(secrets);
  if (names.length === 0 && !options.claimFor) return { text, secrets: [], key: undefined };
  const key = names.length === 0 ? undefined : fromEnv ? 'env' : ensureVaultKeyFile(loaded.config.data_dir);
  const database = await openMigratedDatabase(loaded);
  let claim: Stored['claim'];
  try {
    const vault = new Vault({ db: database.db, passphrase: vaultPassphrase(loaded) });
    for (const name of names) await vault.put(name, secrets[name]!, { overwrite: true });
    if (options.claimFor) {
      const issued = await OperatorClaims.issue(database.db, options.claimFor, CLAIM_HOURS * 3_600_000);
      claim = { code: issued.code, hours: CLAIM_HOURS };
    }
  } finally {
    await database.close();
  }
  return {
    text,
    secrets: names,
    key: key === undefined || key === 'env' ? key : { file: key.path, created: key.created },
    ...(claim && { claim }),
  };
}
