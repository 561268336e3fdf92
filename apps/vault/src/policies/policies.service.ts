import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { findBuiltinPolicy, PasswordPolicy, policyProblems } from '@app/crypto';
import { AppError } from '@app/http';
import { PasswordPolicyRow } from '@app/persistence';

/** Resolves policy names: the built-in Strong/Medium/Low, then the organisation's own. */
@Injectable()
export class PoliciesService {
  constructor(private readonly dataSource: DataSource) {}

  async find(orgId: number, name: string): Promise<PasswordPolicy | undefined> {
    const builtin = findBuiltinPolicy(name);
    if (builtin) return builtin;
    const row = await this.dataSource
      .getRepository(PasswordPolicyRow)
      .findOne({ where: { orgId, nameKey: name.trim().toLowerCase() } });
    return row ? toPolicy(row) : undefined;
  }

  /** The policy, or a Failed answer naming the unknown policy and the field it came from. */
  async require(orgId: number, name: string, field: string): Promise<PasswordPolicy> {
    const policy = await this.find(orgId, name);
    if (!policy) throw AppError.invalid(`${field}: no password policy named "${name}"`);
    return policy;
  }
}

export function toPolicy(row: PasswordPolicyRow): PasswordPolicy {
  const policy: PasswordPolicy = {
    name: row.name,
    minLength: row.minLength,
    maxLength: row.maxLength,
    minLower: row.minLower,
    minUpper: row.minUpper,
    minDigits: row.minDigits,
    minSpecial: row.minSpecial,
    specialChars: row.specialChars,
    excludedChars: row.excludedChars,
    firstChar: row.firstChar as PasswordPolicy['firstChar'],
    noReuseLast: row.noReuseLast,
    maxAgeDays: row.maxAgeDays,
  };
  const problems = policyProblems(policy);
  if (problems.length) throw new Error(`Stored policy ${row.name} is invalid: ${problems.join('; ')}`);
  return policy;
}
