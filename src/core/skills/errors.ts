import { KazmaError } from '../errors.ts';

/** A skill's `skill.yaml` is missing or does not fit the schema; `issues` name each field and why. */
export class SkillManifestError extends KazmaError {
  readonly dir: string;
  readonly issues: readonly string[];
  constructor(dir: string, issues: readonly string[]) {
    super('skill_manifest_invalid', `${dir}/skill.yaml is not valid:\n  ${issues.join('\n  ')}`);
    this.dir = dir;
    this.issues = issues;
  }
}

/**
 * A skill's files cannot be hashed: its entry module is missing, or it imports a file outside its
 * folder (a file the checksum could not cover, so the skill is refused rather than half-verified).
 */
export class SkillFilesError extends KazmaError {
  constructor(message: string) {
    super('skill_files_invalid', message);
  }
}

/** Signing needs the install's key: `KAZMA_SECRET` or `--secret`. */
export class SkillSecretMissingError extends KazmaError {
  constructor(action: string) {
    super(
      'skill_secret_missing',
      `${action} needs a signing key: set KAZMA_SECRET (the key every Kazma of this install verifies with) or ` +
        `pass --secret`,
    );
  }
}

/** No skill of that name was found on `skills.paths`. */
export class SkillUnknownError extends KazmaError {
  constructor(name: string, known: readonly string[]) {
    super(
      'skill_unknown',
      `there is no skill named "${name}"; ` +
        (known.length ? `installed: ${known.join(', ')}` : 'no skills are installed (see skills.paths)'),
    );
  }
}
