import { isSecretEnv, MASK, maskText, isVaultPointer, pointerName } from '../secrets/index.ts';
import type { VaultPort } from '../vault/index.ts';
import { McpSecretError } from './errors.ts';
import type { McpServerConfig } from '../config/index.ts';

// `--api-key=VALUE`, `--token=VALUE`, `--password=VALUE`: a credential passed as a flag.
const SECRET_FLAG = /^(--?[A-Za-z0-9_-]*(?:key|token|secret|password|passwd|auth)[A-Za-z0-9_-]*=)(.+)$/i;

/** One place in a server's settings that can hold a secret: its label, and how to read and replace it. */
interface Slot {
  field: string;
  value: string;
  secret: boolean;
  set(value: string): void;
}

function slots(server: McpServerConfig): Slot[] {
  if (server.transport === 'stdio') {
    return [
      ...Object.entries(server.env).map(([name, value]) => ({
        field: `env.${name}`,
        value,
        secret: isSecretEnv(name, value),
        set: (v: string) => {
          server.env[name] = v;
        },
      })),
      ...server.args.flatMap((arg, i) => {
        const flag = SECRET_FLAG.exec(arg);
        return flag
          ? [
              {
                field: `args[${i}] (${flag[1]!.slice(0, -1)})`,
                value: flag[2]!,
                secret: true,
                set: (v: string) => {
                  server.args[i] = `${flag[1]}${v}`;
                },
              },
            ]
          : [];
      }),
    ];
  }
  const out: Slot[] = [];
  const auth = server.auth;
  if (auth && 'bearer' in auth)
    out.push({
      field: 'auth.bearer',
      value: auth.bearer,
      secret: true,
      set: (v) => {
        auth.bearer = v;
      },
    });
  if (auth && 'value' in auth)
    out.push({
      field: `auth.value (${auth.header})`,
      value: auth.value,
      secret: true,
      set: (v) => {
        auth.value = v;
      },
    });
  return out;
}

function copy(server: McpServerConfig): McpServerConfig {
  return structuredClone(server);
}

/**
 * The server with every `vault://` pointer replaced by its secret, for connecting; the secrets are
 * returned too, so they can be masked out of errors. A pointer that does not resolve throws
 * {@link McpSecretError} naming the field.
 */
export async function resolveSecrets(
  server: McpServerConfig,
  vault: VaultPort | undefined,
): Promise<{ server: McpServerConfig; secrets: string[] }> {
  const out = copy(server);
  const secrets: string[] = [];
  for (const slot of slots(out)) {
    if (slot.secret && !isVaultPointer(slot.value)) secrets.push(slot.value);
    if (!isVaultPointer(slot.value)) continue;
    if (!vault) throw new McpSecretError(server.name, slot.field, 'there is no vault in this process');
    try {
      const value = await vault.resolve(slot.value);
      slot.set(value);
      secrets.push(value);
    } catch (error) {
      throw new McpSecretError(
        server.name,
        slot.field,
        `"${pointerName(slot.value)}" could not be read (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
  return { server: out, secrets };
}

/** True when the server's settings hold a secret in plain text (one that should be in the vault). */
export function plainSecrets(server: McpServerConfig): string[] {
  return slots(copy(server))
    .filter((s) => s.secret && !isVaultPointer(s.value))
    .map((s) => s.field);
}

/**
 * Moves every plain-text secret of a server into the vault as `mcp.<server>.<field>` and returns the
 * server with pointers in their place (what is saved in the settings table).
 */
export async function stashSecrets(server: McpServerConfig, vault: VaultPort): Promise<McpServerConfig> {
  const out = copy(server);
  for (const slot of slots(out)) {
    if (!slot.secret || isVaultPointer(slot.value)) continue;
    const name = `mcp.${server.name}.${slot.field.replace(/ \(.*\)$/, '').replace(/[^A-Za-z0-9._-]/g, '_')}`.replace(
      /_+$/,
      '',
    );
    slot.set(await vault.stash(name, slot.value));
  }
  return out;
}

/** The server for display (`/config show`, `kazma mcp list`): secrets as {@link MASK}, pointers shown. */
export function maskServer(server: McpServerConfig, secrets: readonly string[] = []): McpServerConfig {
  const out = copy(server);
  for (const slot of slots(out)) if (slot.secret && !isVaultPointer(slot.value)) slot.set(MASK);
  if (out.transport !== 'stdio') {
    out.url = maskQuery(maskText(out.url, secrets));
    return out;
  }
  // Shown in chats (`/config show`), where more than the operator may read: every environment value is
  // hidden (the names say what is set), and so is the value after a credential flag given apart
  // (`--token abc`), besides the `--token=abc` the slots find.
  for (const name of Object.keys(out.env)) if (!isVaultPointer(out.env[name]!)) out.env[name] = MASK;
  out.args = out.args.map((arg, i) =>
    i > 0 && SECRET_FLAG_APART.test(out.args[i - 1]!) && !isVaultPointer(arg) ? MASK : maskText(arg, secrets),
  );
  return out;
}

// `--api-key VALUE`, `--token VALUE`: a credential flag whose value is the next argument.
const SECRET_FLAG_APART = /^--?[A-Za-z0-9_-]*(?:key|token|secret|password|passwd|auth)[A-Za-z0-9_-]*$/i;

/** Every query value of a URL hidden, the names kept: an endpoint's query often carries its key. */
function maskQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const [query, hash = ''] = url.slice(at + 1).split('#', 2) as [string, string?];
  const masked = query
    .split('&')
    .map((pair) => (pair.includes('=') ? `${pair.slice(0, pair.indexOf('='))}=${MASK}` : pair))
    .join('&');
  return `${url.slice(0, at)}?${masked}${hash ? `#${hash}` : ''}`;
}
