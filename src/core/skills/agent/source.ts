import { existsSync } from 'node:fs';
import { KazmaError } from '../../errors.ts';

/**
 * Where an Agent Skill comes from, decided before anything is spawned: a folder on this machine, a git
 * repository (cloned by git itself, never by npm, which would run the package's `prepare`), or a
 * package on the npm registry (packed with its scripts off).
 */
export type SkillSource =
  | { kind: 'folder'; path: string }
  | { kind: 'git'; url: string; ref?: string; local: boolean }
  | { kind: 'npm'; spec: string; local: boolean };

/** The model asked to install from a source it may not use; the message names why and who can. */
export class AgentSkillSourceRefusedError extends KazmaError {
  constructor(source: string, why: string) {
    super('agent_skill_source_refused', `"${source}" cannot be installed by the model: ${why}`);
  }
}

// A registry spec: a (scoped) package name with an optional version, range or tag that names no path or
// protocol; `alias@npm:…`, `file:…` and URLs do not match. What does not match is not a registry spec.
const REGISTRY = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[\w.^~<>=*|-]+)?$/i;
const TARBALL = /\.(tgz|tar|tar\.gz)$/i;
const REMOTE_GIT = /^(https?:\/\/|ssh:\/\/|git:\/\/|git@[\w.-]+:)/;

/**
 * Reads `source` as a folder, a git repository or an npm spec. Without `local` (the model's
 * install_agent_skill) only remote sources pass: a folder, `file:`, `git+file:`, a local tarball or
 * anything npm would read from disk is refused with {@link AgentSkillSourceRefusedError} — one approval
 * card showing a path is no review of what that path holds.
 */
export function readSource(source: string, local: boolean): SkillSource {
  const parsed = classify(source.trim());
  if (!local && (parsed.kind === 'folder' || parsed.local)) {
    throw new AgentSkillSourceRefusedError(
      source,
      'it names files on this machine (a folder, file:, git+file: or a ' +
        'local tarball), which an approval card cannot show; an operator can install it with ' +
        'kazma agent-skills install',
    );
  }
  if (parsed.kind === 'npm' && !parsed.local && !REGISTRY.test(parsed.spec)) {
    throw new AgentSkillSourceRefusedError(
      source,
      'it is neither a git URL (https://, ssh://, git@host:, github:owner/repo)' +
        ' nor a package name on the npm registry; an operator can install other sources with ' +
        'kazma agent-skills install',
    );
  }
  return parsed;
}

function classify(source: string): SkillSource {
  const git = gitUrl(source);
  if (git) return git;
  if (source.startsWith('file:')) return { kind: 'npm', spec: source, local: true };
  if (/^[./~]/.test(source) || existsSync(source)) {
    return TARBALL.test(source) ? { kind: 'npm', spec: source, local: true } : { kind: 'folder', path: source };
  }
  // npm reads a spec ending like a tarball, or holding a slash or a protocol, from disk or elsewhere.
  return { kind: 'npm', spec: source, local: TARBALL.test(source) };
}

/** The git URL git itself clones (and its `#ref`), or undefined when `source` is not a git source. */
function gitUrl(source: string): SkillSource | undefined {
  const [base = '', ref] = source.split('#', 2) as [string, string | undefined];
  const withRef = (url: string, local: boolean): SkillSource => ({ kind: 'git', url, local, ...(ref && { ref }) });
  const github = /^github:([\w.-]+)\/([\w.-]+?)(\.git)?$/.exec(base);
  if (github) return withRef(`https://github.com/${github[1]}/${github[2]}.git`, false);
  const stripped = base.replace(/^git\+/, '');
  if (REMOTE_GIT.test(stripped)) return withRef(stripped, false);
  if (stripped.startsWith('file://')) return withRef(stripped, true);
  if (base.startsWith('git+')) return withRef(stripped, true); // git+<anything else> names no remote we know
  if (base.endsWith('.git') && !base.includes(':')) return withRef(base, true);
  return undefined;
}
