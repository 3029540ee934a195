import { sealSkill, type SealedSkill } from './checksum.ts';
import type { SkillManifest } from './manifest.ts';
import { hmacHex, sameDigest } from './signature.ts';

/** Where the signing key comes from. */
export const SECRET_ENV = 'KAZMA_SECRET';

/** The configuration key naming the skills an operator lets load unsigned. */
export const ALLOW_UNSIGNED = 'skills.allow_unsigned';

/**
 * How far a skill may be trusted: `verified` (its folder matches a checksum signed with this install's
 * key), `unsigned` (not signed, but its name is in `skills.allow_unsigned`: loads, with a warning),
 * `refused` (its tools never reach the model). A loadable verdict carries the sealed bytes to run.
 */
export type SkillVerdict =
  | { status: 'verified'; sealed: SealedSkill }
  | { status: 'unsigned'; warning: string; sealed: SealedSkill }
  | { status: 'refused'; reason: string };

/**
 * Checks a skill's folder against its manifest, fail-closed: every doubt is a refusal. A skill that is
 * not signed (no checksum, or no signature to check it by) loads only when the operator named it in
 * `skills.allow_unsigned`: otherwise stripping a skill's checksum and signature would make tampered code
 * load as merely "unsigned".
 *
 * @example
 * verifySkill('./skills/weather', readManifest('./skills/weather'), env.KAZMA_SECRET, ['weather'])
 */
export function verifySkill(
  dir: string,
  manifest: SkillManifest,
  secret: string | undefined,
  allowUnsigned: readonly string[] = [],
): SkillVerdict {
  let sealed: SealedSkill;
  try {
    sealed = sealSkill(dir, manifest);
  } catch (error) {
    return { status: 'refused', reason: (error as Error).message };
  }
  const { checksum, signature } = manifest;
  const unsigned = (why: string): SkillVerdict =>
    allowUnsigned.includes(manifest.name)
      ? { status: 'unsigned', warning: `${why}; allowed unsigned by ${ALLOW_UNSIGNED}`, sealed }
      : { status: 'refused', reason: `${why}: sign it with kazma hub sign, or allow it by name in ${ALLOW_UNSIGNED}` };
  if (!checksum) {
    if (signature)
      return {
        status: 'refused',
        reason: 'it has a signature but no checksum: skill.yaml was altered; re-sign it with kazma hub sign',
      };
    return unsigned('it has no checksum or signature, so nothing vouches for its code');
  }
  if (!sameDigest(checksum, sealed.checksum))
    return { status: 'refused', reason: 'its code does not match its checksum: it may have been tampered with' };
  if (signature && !secret)
    return {
      status: 'refused',
      reason: `it is signed, but ${SECRET_ENV} is not set, so its signature cannot be checked`,
    };
  if (signature && !sameDigest(signature, hmacHex(secret!, checksum)))
    return {
      status: 'refused',
      reason: `its signature does not match ${SECRET_ENV}: it was signed with another key or altered`,
    };
  if (!signature && secret)
    return {
      status: 'refused',
      reason:
        `it has a checksum but no signature while ${SECRET_ENV} is set: the signature may have been stripped; ` +
        're-sign it with kazma hub sign',
    };
  if (!signature) return unsigned(`its checksum matches but it is not signed (${SECRET_ENV} is not set)`);
  return { status: 'verified', sealed };
}

/** The checksum and signature `kazma hub sign` writes into skill.yaml. */
export function signSkill(
  dir: string,
  manifest: SkillManifest,
  secret: string,
): { checksum: string; signature: string } {
  const { checksum } = sealSkill(dir, manifest);
  return { checksum, signature: hmacHex(secret, checksum) };
}
