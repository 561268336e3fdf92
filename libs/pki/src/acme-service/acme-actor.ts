import { Actor } from '@app/audit';
import { AccountRow } from './acme.repository';
import { AcmeHttpRequest } from './acme-verifier';

/** Who acts for audit and inventory: the ACME account, in its organisation (no user id). */
export function acmeActor(account: Pick<AccountRow, 'id' | 'org_id'>, req: AcmeHttpRequest): Actor {
  return {
    id: 0,
    orgId: account.org_id,
    orgName: '',
    username: `acme:${account.id}`,
    role: '',
    isSuperAdmin: false,
    ip: req.ip,
    client: `ACME ${req.userAgent}`.trim(),
  };
}
