// `kazma mcp add` arguments: options first, then the server's command and its arguments verbatim (so
// `npx -y pkg --flag` needs no `--`), plus the rewrite of install commands into run commands.

/** What `kazma mcp add` read; `server` is the raw object validated by the server schema. */
export interface AddArgs {
  server: Record<string, unknown>;
  notices: string[];
}

const VALUE_OPTIONS = new Set([
  '--transport',
  '--url',
  '--bearer',
  '--header',
  '--env',
  '--cwd',
  '--trust',
  '--config',
  '-c',
]);

/**
 * Reads `add <name> [options] [--] <command> [args...]`. Options: --transport, --url, --bearer,
 * --header "Name: value", --env K=V (repeatable), --cwd, --trust, --sampling, --elicitation.
 * Throws an Error with a usage message on anything it cannot read.
 */
export function parseAddArgs(argv: readonly string[]): AddArgs & { config?: string } {
  const [name, ...rest] = argv;
  if (!name || name.startsWith('-'))
    throw new Error('name the server first: kazma mcp add <name> [options] <command> [args...]');
  const server: Record<string, unknown> = { name };
  const env: Record<string, string> = {};
  let config: string | undefined;
  let i = 0;
  for (; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    if (!arg.startsWith('-')) break;
    if (arg === '--sampling' || arg === '--elicitation') {
      server[arg.slice(2)] = true;
      continue;
    }
    if (!VALUE_OPTIONS.has(arg)) throw new Error(`unknown option ${arg}`);
    const value = rest[++i];
    if (value === undefined) throw new Error(`${arg} needs a value`);
    if (arg === '--env') {
      const eq = value.indexOf('=');
      if (eq < 1) throw new Error(`--env ${value}: expected NAME=value`);
      env[value.slice(0, eq)] = value.slice(eq + 1);
    } else if (arg === '--header') {
      const colon = value.indexOf(':');
      if (colon < 1) throw new Error(`--header ${value}: expected "Name: value"`);
      server.auth = { header: value.slice(0, colon).trim(), value: value.slice(colon + 1).trim() };
    } else if (arg === '--bearer') server.auth = { bearer: value };
    else if (arg === '--config' || arg === '-c') config = value;
    else server[arg.slice(2)] = value;
  }
  const command = rest.slice(i);
  const notices: string[] = [];
  if (command.length > 0) {
    const rewritten = rewriteInstall(command);
    if (rewritten)
      notices.push(`"${command.join(' ')}" installs a package; running it as "${rewritten.join(' ')}" instead`);
    const [cmd, ...args] = rewritten ?? command;
    Object.assign(server, { command: cmd, args });
  }
  if (Object.keys(env).length > 0) server.env = env;
  if (!server.command && !server.url) throw new Error("give the server's command (after the options) or --url");
  return { server, notices, ...(config && { config }) };
}

/**
 * `npm install -g X`, `npm i -g X`, `npm install --global X` and `yarn global add X` install a package
 * instead of running a server; `npx -y X` runs it. Undefined when the command is not one of those.
 */
export function rewriteInstall(command: readonly string[]): string[] | undefined {
  const [tool, ...words] = command;
  const global = words.some((w) => w === '-g' || w === '--global');
  const packages = words.filter((w) => !w.startsWith('-') && !['install', 'i', 'add', 'global'].includes(w));
  const npmInstall = tool === 'npm' && ['install', 'i', 'add'].includes(words[0] ?? '') && global;
  const yarnGlobal = tool === 'yarn' && words[0] === 'global' && words[1] === 'add';
  if (!(npmInstall || yarnGlobal) || packages.length !== 1) return undefined;
  return ['npx', '-y', packages[0]!];
}
