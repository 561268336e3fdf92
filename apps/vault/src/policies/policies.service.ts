import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditWriter } from '@app/audit';
import { BUILTIN_POLICIES, complianceProblems, findBuiltinPolicy, generatePassword, parsePolicyInput, PasswordPolicy, PolicyError, policyProblems } from '@app/crypto';
import { AppError, ErrorCode, listReply, reply, Reply } from '@app/http';
import { PasswordPolicyRow } from '@app/persistence';
import { insertPolicy } from './policy-store';

/** Resolves policy names: the built-in Strong/Medium/Low, then the organisation's own. */
@Injectable()
export class PoliciesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
  ) {}

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

  async list(orgId: number): Promise<Reply> {
    const rows = await this.dataSource.getRepository(PasswordPolicyRow).find({ where: { orgId }, order: { nameKey: 'ASC' } });
    const policies = [...BUILTIN_POLICIES.map((p) => ({ policy: p, builtin: true })), ...rows.map((r) => ({ policy: toPolicy(r), builtin: false }))];
    return listReply(
      'Password policies fetched successfully',
      policies.map(({ policy, builtin }) => describePolicy(policy, builtin)),
    );
  }

  /** An administrator's own policy; one that could never produce a password is refused. */
  async create(actor: Actor, details: Record<string, unknown>): Promise<Reply> {
    let policy: PasswordPolicy;
    try {
      policy = parsePolicyInput(details);
    } catch (error) {
      if (error instanceof PolicyError) throw AppError.invalid(error.message);
      throw error;
    }
    await this.dataSource.transaction((m) => insertPolicy(m, this.audit, actor.orgId, policy, actor, 'API'));
    return reply(`Password policy ${policy.name} added successfully`, describePolicy(policy, false));
  }

  /** GENERATE PASSWORD (op 16): a fresh password that satisfies the named policy. */
  async generate(actor: Actor, name: string | undefined): Promise<Reply> {
    const policy = await this.require(actor.orgId, name ?? BUILTIN_POLICIES[0].name, 'POLICY');
    return reply('Password generated successfully', { PASSWORD: generatePassword(policy) });
  }

  /**
   * PAM360's password validation: message `Valid` (clients compare it), or Failed with the
   * policy's reasons in the message and Details.REASONS. The password is neither stored nor
   * audited: it is checked against rules, not against any secret.
   */
  async validate(actor: Actor, password: string, policyName: string | undefined): Promise<Reply> {
    const policy = await this.require(actor.orgId, policyName ?? BUILTIN_POLICIES[0].name, 'passwordPolicy');
    const problems = complianceProblems(policy, password);
    if (problems.length) throw new AppError(ErrorCode.InvalidInput, problems.join('; '), { PASSWORDPOLICY: policy.name, REASONS: problems });
    return reply('Valid', { PASSWORDPOLICY: policy.name });
  }
}

function describePolicy(policy: PasswordPolicy, builtin: boolean): Record<string, string> {
  return {
    POLICYNAME: policy.name,
    MINLENGTH: String(policy.minLength),
    MAXLENGTH: String(policy.maxLength),
    MINLOWER: String(policy.minLower),
    MINUPPER: String(policy.minUpper),
    MINDIGITS: String(policy.minDigits),
    MINSPECIAL: String(policy.minSpecial),
    SPECIALCHARS: policy.specialChars,
    EXCLUDEDCHARS: policy.excludedChars,
    FIRSTCHAR: policy.firstChar,
    NOREUSELAST: String(policy.noReuseLast),
    MAXAGEDAYS: String(policy.maxAgeDays),
    BUILTIN: builtin ? 'true' : 'false',
  };
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
