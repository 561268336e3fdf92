import { AuditWriter } from '@app/audit';
import { BUILTIN_POLICIES, parsePolicyInput, PolicyError } from '@app/crypto';
import { insertPolicy } from '../../apps/vault/src/policies/policy-store';
import { Args, optional } from './args';
import { AdminCommand } from './command';
import { orgId } from './context';

/** Flag → INPUT_DATA field of the POST /passwordpolicies operation; both take the same names. */
const FLAGS: Record<string, string> = {
  name: 'NAME',
  'min-length': 'MINLENGTH',
  'max-length': 'MAXLENGTH',
  'min-lower': 'MINLOWER',
  'min-upper': 'MINUPPER',
  'min-digits': 'MINDIGITS',
  'min-special': 'MINSPECIAL',
  'special-chars': 'SPECIALCHARS',
  'excluded-chars': 'EXCLUDEDCHARS',
  'first-char': 'FIRSTCHAR',
  'no-reuse-last': 'NOREUSELAST',
  'max-age-days': 'MAXAGEDAYS',
};

export const listPoliciesCommand: AdminCommand = {
  name: 'list-policies',
  usage: 'list-policies [--org O]',
  summary: 'List the built-in and administrator-defined password policies',
  async run(ctx, args) {
    const rows = await ctx.dataSource.query(
      'SELECT name, min_length, max_length FROM password_policies WHERE org_id = $1 ORDER BY name_key',
      [await orgId(ctx.dataSource, optional(args, 'org'))],
    );
    for (const p of BUILTIN_POLICIES) console.log(`${p.name}\t${p.minLength}-${p.maxLength}\tbuilt-in`);
    for (const r of rows) console.log(`${r.name}\t${r.min_length}-${r.max_length}\tcustom`);
  },
};

export const addPolicyCommand: AdminCommand = {
  name: 'add-policy',
  usage: `add-policy --name N --min-length L --max-length M [${Object.keys(FLAGS).slice(3).map((f) => `--${f} V`).join(' ')}] [--org O]`,
  summary: 'Add a password policy; one that cannot generate a password is refused',
  async run(ctx, args) {
    let policy;
    try {
      policy = parsePolicyInput(policyFields(args));
    } catch (error) {
      throw error instanceof PolicyError ? new Error(error.message) : error;
    }
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const audit = new AuditWriter(ctx.dataSource);
    await ctx.dataSource.transaction((m) => insertPolicy(m, audit, org, policy, null, 'admin CLI'));
    console.log(`Added password policy ${policy.name}.`);
  },
};

function policyFields(args: Args): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(FLAGS)) {
    const value = optional(args, flag);
    if (value !== undefined) fields[field] = value;
  }
  return fields;
}
