import { EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { findBuiltinPolicy, PasswordPolicy } from '@app/crypto';
import { AppError } from '@app/http';

/** Saves an administrator's policy (already validated by parsePolicyInput) with its audit row. */
export async function insertPolicy(
  m: EntityManager,
  audit: AuditWriter,
  orgId: number,
  policy: PasswordPolicy,
  actor: Actor | null,
  via: string,
): Promise<void> {
  if (findBuiltinPolicy(policy.name)) throw AppError.conflict(`${policy.name} is a built-in password policy and cannot be redefined`);
  const [existing] = await m.query('SELECT id FROM password_policies WHERE org_id = $1 AND name_key = lower($2)', [orgId, policy.name]);
  if (existing) throw AppError.conflict(`A password policy named ${policy.name} already exists`);
  await m.query(
    `INSERT INTO password_policies (org_id, name, name_key, min_length, max_length, min_lower, min_upper, min_digits, min_special,
       special_chars, excluded_chars, first_char, no_reuse_last, max_age_days)
     VALUES ($1, $2, lower($2), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      orgId, policy.name, policy.minLength, policy.maxLength, policy.minLower, policy.minUpper, policy.minDigits,
      policy.minSpecial, policy.specialChars, policy.excludedChars, policy.firstChar, policy.noReuseLast, policy.maxAgeDays,
    ],
  );
  await audit.record({ category: 'Resource', operation: AuditOperation.PolicyCreated, orgId, actor, target: policy.name, description: via }, m);
}
