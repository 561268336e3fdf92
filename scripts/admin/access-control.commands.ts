import { AuditWriter } from '@app/audit';
import { parseInput } from '@app/http';
import { AccessControlDto } from '../../apps/vault/src/password-requests/access-control.dto';
import { applyAccessControl } from '../../apps/vault/src/password-requests/access-control.settings';
import { Args, optional, required } from './args';
import { AdminCommand } from './command';
import { orgId } from './context';

/** Command-line flags and the CONFIGURE ACCESS CONTROL fields they set. */
const FLAGS: Record<string, keyof AccessControlDto> = {
  approval: 'APPROVAL_REQUIRED',
  approvers: 'APPROVERS_REQUIRED',
  'admins-approve': 'ADMINS_APPROVE',
  'approver-users': 'APPROVER_USERS',
  'approver-groups': 'APPROVER_GROUPS',
  exclusive: 'EXCLUSIVE',
  'checkout-minutes': 'CHECKOUT_MINUTES',
  'request-ttl-minutes': 'REQUEST_TTL_MINUTES',
  'reset-after-checkin': 'RESET_AFTER_CHECKIN',
  'reason-required': 'REASON_REQUIRED',
};

export const accessControlCommand: AdminCommand = {
  name: 'access-control',
  usage:
    'access-control --resource R [--account A] [--org O] [--off] [--approval true|false] [--approvers 1|2] ' +
    '[--admins-approve true|false] [--approver-users u1,u2] [--approver-groups g1,g2] [--exclusive true|false] ' +
    '[--checkout-minutes N] [--request-ttl-minutes N] [--reset-after-checkin true|false] [--reason-required true|false]',
  summary: 'Put a resource (or one account) under password access control, or take it off',
  async run(ctx, args) {
    const dto = parseInput(AccessControlDto, (field) => (field === 'ENABLED' ? (args.off === true ? 'false' : undefined) : flagValue(args, field)));
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const resourceName = required(args, 'resource');
    const accountName = optional(args, 'account');
    const message = await ctx.dataSource.transaction(async (m) => {
      const [resource] = await m.query('SELECT id, name FROM resources WHERE org_id = $1 AND name_key = lower($2) FOR UPDATE', [org, resourceName]);
      if (!resource) throw new Error(`No resource named ${resourceName}`);
      let account: { id: number; name: string } | undefined;
      if (accountName !== undefined) {
        [account] = await m.query('SELECT id, name FROM accounts WHERE resource_id = $1 AND name_key = lower($2)', [resource.id, accountName]);
        if (!account) throw new Error(`No account named ${accountName} on ${resource.name}`);
      }
      const target = { orgId: org, resourceId: resource.id, resourceName: resource.name, accountId: account?.id ?? null, accountName: account?.name ?? '' };
      return applyAccessControl(m, new AuditWriter(ctx.dataSource), null, target, dto);
    });
    console.log(message);
  },
};

function flagValue(args: Args, field: string): string | undefined {
  const flag = Object.keys(FLAGS).find((f) => FLAGS[f] === field);
  const value = flag ? args[flag] : undefined;
  return value === true ? 'true' : value;
}
