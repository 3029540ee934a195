// Keys renamed in kazma.yaml. An old key keeps working for one release: its value moves to the new key
// and a warning names the new one. Liveness (how long an owner may go silent before its work is taken
// over) is a lease's time to live, `*.lease_ttl`; progress (`runs.stall_after`) keeps its name.

/** Old key → new key, as dotted paths of one section. */
export const RENAMED_KEYS: ReadonlyArray<readonly [section: string, old: string, renamed: string]> = [
  ['approvals', 'stale_after', 'lease_ttl'],
  ['turns', 'stale_after', 'lease_ttl'],
  ['jobs', 'stalled_after', 'lease_ttl'],
];

/** What moving the old keys found: a warning per old key used, an issue per key set both ways. */
export interface RenamedKeys {
  value: unknown;
  warnings: string[];
  issues: string[];
}

/** Moves each old key's value to its new key (the raw file, before validation), saying so. */
export function moveRenamedKeys(raw: unknown): RenamedKeys {
  const warnings: string[] = [];
  const issues: string[] = [];
  if (!isMapping(raw)) return { value: raw, warnings, issues };
  const value: Record<string, unknown> = { ...raw };
  for (const [name, old, renamed] of RENAMED_KEYS) {
    const section = value[name];
    if (!isMapping(section) || !(old in section)) continue;
    const { [old]: moved, ...rest } = section;
    if (renamed in section) {
      issues.push(`${name}.${old}: renamed ${name}.${renamed}, which is set too; keep only ${name}.${renamed}`);
      value[name] = rest;
      continue;
    }
    value[name] = { ...rest, [renamed]: moved };
    warnings.push(`${name}.${old} is renamed ${name}.${renamed}; the old name still works in this release, rename it`);
  }
  return { value, warnings, issues };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
