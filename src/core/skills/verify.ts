import { skillChecksum } from './checksum.ts';
import type { SkillManifest } from './manifest.ts';
import { hmacHex, sameDigest } from './signature.ts';

/** Where the signing key comes from. */
export const SECRET_ENV = 'KAZMA_SECRET';

/**
 * How far a skill may be trusted: `verified` (its code matches a checksum signed with this install's
 * key), `unsigned` (loads, with a warning), `refused` (its tools never reach the model).
 */
export type SkillVerdict =
  | { status: 'verified' }
  | { status: 'unsigned'; warning: string }
  | { status: 'refused'; reason: string };

/**
 * Checks a skill's files against its manifest, fail-closed: every doubt is a refusal, except a skill
 * that carries no checksum at all, which loads with a warning (a skill being written).
 *
 * @example
 * verifySkill('./skills/weather', readManifest('./skills/weather'), env.KAZMA_SECRET)
 */
export function verifySkill(dir: string, manifest: SkillManifest, secret: string | undefined): SkillVerdict {
  let actual: string;
  try {
    actual = skillChecksum(dir, manifest.entry_point);
  } catch (error) {
    return { status: 'refused', reason: (error as Error).message };
  }
  const { checksum, signature } = manifest;
  if (!checksum) {
    if (signature)
      return {
        status: 'refused',
        reason: 'it has a signature but no checksum: skill.yaml was altered; re-sign it with kazma hub sign',
      };
    return {
      status: 'unsigned',
      warning: 'it has no checksum or signature, so nothing vouches for its code; sign it with kazma hub sign',
    };
  }
  if (!sameDigest(checksum, actual))
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
        `re-sign it with kazma hub sign`,
    };
  if (!signature)
    return { status: 'unsigned', warning: `its checksum matches but it is not signed (${SECRET_ENV} is not set)` };
  return { status: 'verified' };
}

/** The checksum and signature `kazma hub sign` writes into skill.yaml. */
export function signSkill(
  dir: string,
  manifest: SkillManifest,
  secret: string,
): { checksum: string; signature: string } {
  const checksum = skillChecksum(dir, manifest.entry_point);
  return { checksum, signature: hmacHex(secret, checksum) };
}
