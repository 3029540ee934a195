// The public face of core/pairing: DM pairing (`access.pairing`, `/pair`, `/config users`).
export { createPairing } from './module.ts';
export { OperatorClaims } from './operator-claims.ts';
