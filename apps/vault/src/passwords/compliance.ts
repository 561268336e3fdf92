import { complianceProblems, PasswordPolicy } from '@app/crypto';

/**
 * A password's compliance verdict as an account row keeps it (compliance_policy,
 * compliance_problems): made by the server when it holds the password anyway (the password
 * is being set) or when the gate has decided a use that opens it, never on a details call.
 */
export interface ComplianceVerdict {
  /** The policy's name as the account named it when the verdict was made. */
  policy: string;
  /** Why the password does not meet that policy, as COMPLIANT REASON says it; '' when it does. */
  problems: string;
}

export function verdictOf(policy: PasswordPolicy | undefined, policyName: string, password: string): ComplianceVerdict {
  return { policy: policyName, problems: policy ? complianceProblems(policy, password).join(', ') : '' };
}

/**
 * COMPLIANT STATUS and COMPLIANT REASON from the stored verdict. A verdict made against
 * another policy than the account's current one (the policy was switched, and the gate did
 * not let the switcher have it assessed) or none at all (an account from before verdicts
 * were kept, until the server's next start) is unknown: nothing is inferred from it.
 */
export function describeVerdict(accountPolicy: string, stored: { compliance_policy: string | null; compliance_problems: string | null }): {
  status: string;
  reason: string;
} {
  if (stored.compliance_policy === null) return { status: 'Unknown', reason: `Not checked against the ${accountPolicy} policy yet: checked at the server's next start` };
  if (stored.compliance_policy.trim().toLowerCase() !== accountPolicy.trim().toLowerCase()) {
    return { status: 'Unknown', reason: `Not checked against the ${accountPolicy} policy yet: checked when the password next changes` };
  }
  return stored.compliance_problems ? { status: 'Non-Compliant', reason: stored.compliance_problems } : { status: 'Compliant', reason: '-' };
}
