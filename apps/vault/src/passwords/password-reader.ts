import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation } from '@app/audit';
import { Keyring } from '@app/crypto';
import { AppError, reply, Reply } from '@app/http';
import { pgPool, prepared } from '@app/persistence';
import { resourceVisibleSql } from '../common/visibility';
import { PASSWORD_CONTEXT } from '../resources/resources.service';

// The hot path: one statement finds the account the caller may see and writes the audit
// row (a data-modifying CTE always runs), so the secret is never released unaudited.
const READ_PASSWORD = `
WITH target AS (
  SELECT a.id, a.name, a.password, r.id AS rid, r.name AS rname, r.org_id
  FROM accounts a JOIN resources r ON r.id = a.resource_id
  WHERE a.id = $5 AND r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3')}
), logged AS (
  INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, client,
                     resource_id, resource_name, account_id, account_name, reason, ticket_id)
  SELECT org_id, 'Resource', '${AuditOperation.PasswordRetrieved}', 'Success', $2, $6, $7, $8,
         rid, rname, id, name, $9, $10 FROM target
  RETURNING id
)
SELECT t.password, (SELECT count(*) FROM logged)::int AS logged FROM target t`;

@Injectable()
export class PasswordReader {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
  ) {}

  async read(actor: Actor, resourceId: number, accountId: number, reason = '', ticketId = ''): Promise<Reply> {
    const rows = await prepared<{ password: Buffer; logged: number }>(pgPool(this.dataSource), 'read_password', READ_PASSWORD, [
      actor.orgId,
      actor.id,
      actor.isSuperAdmin,
      resourceId,
      accountId,
      actor.username,
      actor.ip,
      actor.client.slice(0, 200),
      reason.slice(0, 1000),
      ticketId.slice(0, 200),
    ]);
    const row = rows[0];
    if (!row) throw AppError.notFound('No such account found');
    if (row.logged !== 1) throw new Error('Password read was not audited');
    const password = this.keyring.openLoaded(row.password, PASSWORD_CONTEXT) ?? (await this.keyring.open(row.password, PASSWORD_CONTEXT));
    return reply('Password fetched successfully', { PASSWORD: password.toString('utf8') });
  }
}
