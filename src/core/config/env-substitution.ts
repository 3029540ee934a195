/** Environment variables as the config module sees them; only this module reads process.env. */
export type Environment = Readonly<Record<string, string | undefined>>;

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string of a parsed YAML tree, and says which
 * variable gave each key its value (`sources['model.api_key'] = 'OPENAI_API_KEY'`), so an error about
 * a value can name where it came from. A `${VAR}` with no
 * default whose variable is unset is reported with the key path, so the user learns which setting
 * needs it. `$${...}` is left as a literal `${...}`.
 */
export function substituteEnv(
  tree: unknown,
  env: Environment,
): { value: unknown; issues: string[]; sources: Record<string, string> } {
  const issues: string[] = [];
  const sources: Record<string, string> = {};
  const walk = (node: unknown, path: string): unknown => {
    if (typeof node === 'string') {
      const used = [...node.matchAll(PLACEHOLDER)]
        .map((m) => m[1]!)
        .find((name) => env[name] !== undefined && env[name] !== '');
      if (used) sources[path] = used;
      return substituteString(node, env, path, issues);
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, `${path}[${i}]`));
    if (node && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node).map(([key, value]) => [key, walk(value, path ? `${path}.${key}` : key)]),
      );
    }
    return node;
  };
  return { value: walk(tree, ''), issues, sources };
}

function substituteString(text: string, env: Environment, path: string, issues: string[]): string {
  const escaped = text.split('$${');
  return escaped
    .map((part) =>
      part.replace(PLACEHOLDER, (_whole, name: string, fallback: string | undefined) => {
        const value = env[name];
        if (value !== undefined && value !== '') return value;
        if (fallback !== undefined) return fallback;
        issues.push(`${path || '(root)'}: environment variable ${name} is not set`);
        return '';
      }),
    )
    .join('${');
}
