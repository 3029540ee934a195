import { z } from 'zod';

/**
 * `mcp.servers[]` in kazma.yaml (and the same shape in the settings table, for servers added at run
 * time). `transport` may be left out: a `command` means stdio, a `url` means Streamable HTTP; `http` is
 * an alias of `streamable_http`.
 *
 * @example
 * mcp:
 *   servers:
 *     - { name: files, command: npx, args: [-y, "@modelcontextprotocol/server-filesystem", /srv/notes] }
 *     - { name: issues, url: "https://mcp.example.com/mcp", auth: { bearer: "vault://issues-token" } }
 */
const common = {
  /** Becomes part of every tool name (`mcp__<name>__<tool>`), so it is kept short and plain. */
  // "__" separates the server from the tool in `mcp__<server>__<tool>`: a server name holding it (or
  // starting or ending with "_") would let two servers' tools share a name, and mcp.safe_tools cover the
  // wrong one.
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, { message: 'use 1-32 letters, digits, "_" or "-"' })
    .refine((name) => !name.includes('__') && !name.startsWith('_') && !name.endsWith('_'), {
      message: 'must not contain "__" or start or end with "_" ("__" separates the server from the tool in tool names)',
    }),
  /** `trusted` lets its tools run without approval; refused in production unless KAZMA_MCP_TRUSTED_IN_PROD=1. */
  trust: z.enum(['trusted', 'untrusted']).default('untrusted'),
  enabled: z.boolean().default(true),
  /** Let the server ask Kazma's model to write something (MCP sampling); each request needs approval. Default off. */
  sampling: z.boolean().default(false),
  /** Let the server ask the person a question (MCP elicitation); each request needs approval. Default off. */
  elicitation: z.boolean().default(false),
};

export const mcpAuthSchema = z.union([
  z.strictObject({ bearer: z.string().min(1) }),
  z.strictObject({ header: z.string().regex(/^[A-Za-z0-9-]+$/), value: z.string().min(1) }),
]);

const stdioServer = z.strictObject({
  ...common,
  transport: z.literal('stdio'),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** The server's own variables, on top of the allowlisted basics (PATH, HOME, temp dirs, locale, TZ, proxies). */
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).default({}),
  cwd: z.string().optional(),
});

const httpServer = z.strictObject({
  ...common,
  transport: z.enum(['sse', 'streamable_http']),
  url: z.string().regex(/^https?:\/\//, { message: 'expected an http:// or https:// URL' }),
  auth: mcpAuthSchema.optional(),
});

/** Fills in `transport` from `command`/`url` and maps the `http` alias, so the union can discriminate. */
function normalize(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const server = raw as Record<string, unknown>;
  const transport =
    server.transport ?? ('command' in server ? 'stdio' : 'url' in server ? 'streamable_http' : undefined);
  return { ...server, transport: transport === 'http' ? 'streamable_http' : transport };
}

/**
 * A URL's user and password (`https://user:pass@host/mcp`) become what they mean, HTTP Basic auth, as
 * `auth: { header: Authorization, value: "Basic …" }`, and leave the URL. Fetch refuses a URL with
 * credentials outright, and in the URL a password would be saved, shown and logged as part of an
 * address; as `auth.value` it is a secret like any other (masked, and moved into the vault by
 * `kazma mcp add`). A URL with credentials and `auth` too is refused: one of them would be ignored.
 */
function credentialsOutOfUrl(server: z.output<typeof httpServer>, ctx: z.RefinementCtx): z.output<typeof httpServer> {
  let url: URL;
  try {
    url = new URL(server.url);
  } catch {
    ctx.addIssue({ code: 'custom', path: ['url'], message: 'is not a valid URL' });
    return server;
  }
  if (!url.username && !url.password) return server;
  if (server.auth) {
    ctx.addIssue({
      code: 'custom',
      path: ['url'],
      message:
        'holds a user and password, and auth is set too; keep one (auth, with a vault:// pointer, keeps the secret ' +
        'out of the address)',
    });
    return server;
  }
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return {
    ...server,
    url: url.href,
    auth: { header: 'Authorization', value: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` },
  };
}

export const mcpServerSchema = z
  .preprocess(normalize, z.discriminatedUnion('transport', [stdioServer, httpServer]))
  .transform((server, ctx) => (server.transport === 'stdio' ? server : credentialsOutOfUrl(server, ctx)));

/** One MCP server's configuration after validation and defaults. */
export type McpServerConfig = z.output<typeof mcpServerSchema>;

/** `mcp.servers` with unique names. */
export const mcpServersSchema = z
  .array(mcpServerSchema)
  .default([])
  .superRefine((servers, ctx) => {
    const seen = new Set<string>();
    servers.forEach((server, i) => {
      if (seen.has(server.name))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'name'],
          message: `"${server.name}" is used by another server; names must be unique`,
        });
      seen.add(server.name);
    });
  });

/**
 * `trust: trusted` is refused in production (`KAZMA_PRODUCTION=1`) unless `KAZMA_MCP_TRUSTED_IN_PROD=1`:
 * a trusted server's tools run without anyone approving them.
 */
export function trustIssues(
  servers: readonly McpServerConfig[],
  env: Readonly<Record<string, string | undefined>>,
  key = 'mcp.servers',
): string[] {
  if (env.KAZMA_PRODUCTION !== '1' || env.KAZMA_MCP_TRUSTED_IN_PROD === '1') return [];
  return servers.flatMap((server, i) =>
    server.trust === 'trusted'
      ? [
          `${key}[${i}].trust: "trusted" is refused when KAZMA_PRODUCTION=1 (its tools would run without approval); ` +
            `remove it, or set KAZMA_MCP_TRUSTED_IN_PROD=1 to accept that`,
        ]
      : [],
  );
}
