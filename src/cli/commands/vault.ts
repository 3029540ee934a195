import { parseArgs } from 'node:util';
import { DataDirLockedError } from '../../core/db/index.ts';
import {
  Vault,
  VAULT_KEY_ENV,
  VAULT_KEY_FILE,
  VaultDisabledError,
  VaultUnknownNameError,
  vaultPassphrase,
} from '../../core/vault/index.ts';
import { vaultPointer } from '../../core/secrets/index.ts';
import { openMigratedDatabase } from '../../storage.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';

const USAGE = `Usage: kazma vault set <name> [--config FILE]   (the value is read from stdin)
       kazma vault list [--config FILE]
       kazma vault rm <name> [--config FILE]

The secret vault, in the configured database, sealed with a key from ${VAULT_KEY_ENV} (a passphrase),
else from <data_dir>/${VAULT_KEY_FILE} (mode 0600; kazma init writes it).
  set   stores the value piped on stdin under <name>, replacing an existing one; one trailing newline is
        dropped. Never pass a secret as an argument (shell history): printf %s "$TOKEN" | kazma vault set gh
  list  prints the names, one per line, never the values
  rm    deletes <name>
Refer to a secret from kazma.yaml as "vault://<name>". Beside a running \`kazma start\` on the embedded
database it goes through that process (the database it serves on data_dir/socket).`;

export const vault: Subcommand = {
  summary: 'store, list and remove secrets in the vault: set <name> (value on stdin) | list | rm <name>',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseArgs({ args, options: CONFIG_OPTION, allowPositionals: true });
    const [action, name, ...extra] = positionals;
    const needsName = action === 'set' || action === 'rm';
    if (!(needsName || action === 'list') || (needsName && !name) || (!needsName && name) || extra.length > 0) {
      process.stderr.write(
        `kazma vault: ${action ? `unexpected arguments for "${action}"` : 'needs an action'}\n${USAGE}\n`,
      );
      return EXIT.usage;
    }
    try {
      const loaded = loadOrExplain(values.config);
      const passphrase = vaultPassphrase(loaded);
      if (!passphrase) throw new VaultDisabledError(`kazma vault ${action}`);
      // Read before the database opens, so a missing pipe is said without waiting on PGlite.
      const value = action === 'set' ? await readSecret() : undefined;
      if (value === '') {
        process.stderr.write(
          `kazma vault: nothing on stdin; pipe the value in: printf %s "$VALUE" | kazma vault set ${name}\n`,
        );
        return EXIT.usage;
      }
      const database = await openMigratedDatabase(loaded, { besideOwner: true });
      try {
        const store = new Vault({ db: database.db, passphrase });
        if (action === 'list') {
          const names = await store.list();
          if (names.length === 0) process.stderr.write('the vault is empty\n');
          for (const stored of names) console.log(stored);
        } else if (action === 'set') {
          const result = await store.put(name!, value!, { overwrite: true });
          console.log(`${result} secret "${name}"; refer to it as ${vaultPointer(name!)}`);
        } else {
          if (!(await store.remove(name!))) throw new VaultUnknownNameError(name!, await store.list());
          console.log(`removed secret "${name}"`);
        }
      } finally {
        await database.close();
      }
      return EXIT.ok;
    } catch (error) {
      const code = explain(error);
      if (error instanceof DataDirLockedError)
        process.stderr.write(
          'kazma: the running Kazma does not serve its database to commands (an older version, or a data_dir path ' +
            'too long for a socket); stop the running Kazma first (its vault tools, vault_list and vault_store, ' +
            'work meanwhile).\n',
        );
      return code;
    }
  },
};

/** The value piped on stdin, less one trailing newline (`echo x |` adds one); '' when none was piped. */
async function readSecret(): Promise<string> {
  // A terminal would echo the secret as it is typed, and leave it on the screen.
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
