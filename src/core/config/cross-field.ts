// Rules across keys of kazma.yaml that zod's shape cannot express; each issue names the key and the fix.
import { isVaultPointer } from '../secrets/index.ts';
import { approvalPolicyIssues } from './approval-policy-rules.ts';
import { outboundConfigIssues } from './outbound-rules.ts';
import { platformIssues } from './platform-rules.ts';
import type { KazmaConfig } from './schema.ts';
import { webConfigIssues } from './web-rules.ts';

/** Cross-field rules zod's shape cannot express; each names the key and the fix. */
export function crossFieldIssues(config: KazmaConfig): string[] {
  const issues = [...platformIssues(config), ...webConfigIssues(config), ...outboundConfigIssues(config)];
  const names = new Set(config.access.operators.map((o) => o.name));
  config.approvals.approvers.forEach((name, i) => {
    if (!names.has(name)) issues.push(`approvals.approvers[${i}]: "${name}" is not in access.operators`);
  });
  issues.push(...approvalPolicyIssues(config), ...apiTokenIssues(config));
  // The vault is stored in the database, so the database cannot be found through it.
  if (isVaultPointer(config.database.url))
    issues.push(
      'database.url: cannot be a vault:// pointer (the vault is stored in that database); use "${DATABASE_URL}"',
    );
  return issues;
}

/** The shortest operator API token accepted: a token names who decides, so it must not be guessable. */
export const MIN_API_TOKEN_LENGTH = 16;

/** access.operators[].api_token rules: long enough, and each token names one operator. */
function apiTokenIssues(config: KazmaConfig): string[] {
  const issues: string[] = [];
  const owners = new Map<string, number>();
  config.access.operators.forEach((operator, i) => {
    const token = operator.api_token;
    const key = `access.operators[${i}].api_token`;
    if (!token) return;
    // A vault:// pointer is resolved at start (core/vault), where these rules run again on the secret itself.
    if (!isVaultPointer(token) && token.length < MIN_API_TOKEN_LENGTH)
      issues.push(
        `${key}: too short; use at least ${MIN_API_TOKEN_LENGTH} random characters (e.g. openssl rand -hex 24)`,
      );
    const first = owners.get(token);
    if (first !== undefined)
      issues.push(`${key}: the same token as access.operators[${first}].api_token; each operator needs their own`);
    else owners.set(token, i);
  });
  // The shared token only reads; were it an operator's token too, it would decide as them.
  const shared = owners.get(config.http.api_token);
  if (config.http.api_token && shared !== undefined)
    issues.push(
      `http.api_token: the same token as access.operators[${shared}].api_token; the shared token only reads, so ` +
        `give it its own value`,
    );
  return issues;
}
