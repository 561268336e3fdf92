import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation } from '@app/audit';
import { Keyring } from '@app/crypto';
import { AppError, ErrorCode, reply, Reply } from '@app/http';
import { pgPool, prepared } from '@app/persistence';
import { resourceVisibleSql } from '../common/visibility';
import { ACCESS_REFUSALS, accessRefusalSql } from '../password-requests/access-sql';
import { PASSWORD_CONTEXT } from '../resources/resources.service';
import { REFUSAL_MESSAGES, settingSql } from '../settings/settings';

/**
 * Why a password is withheld, decided inside READ_PASSWORD. Each code has a message
 * (and optionally the Details clients read) in REFUSALS; new checks add a WHEN branch
 * to the `verdict` CTE and an entry here.
 */
type Refusal = keyof typeof REFUSALS;
const REFUSALS = {
  REASON: { message: REFUSAL_MESSAGES.REASON },
  TICKETID: { message: REFUSAL_MESSAGES.TICKETID },
  ...ACCESS_REFUSALS,
} satisfies Record<string, { message: string; details?: Record<string, string> }>;

// The hot path: one statement finds the account the caller may see, reads the settings
// that gate it, decides, and writes the audit row (a data-modifying CTE always runs), so
// a secret is never released unaudited and a refusal is audited too.
const READ_PASSWORD = `
WITH target AS (
  SELECT a.id, a.name, a.password, r.id AS rid, r.name AS rname, r.org_id,
         ${accessRefusalSql('a.id', 'r.id', '$2')} AS access_refusal
  FROM accounts a JOIN resources r ON r.id = a.resource_id
  WHERE a.id = $5 AND r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })}
), verdict AS (
  SELECT t.*, CASE
    WHEN t.access_refusal IS NOT NULL THEN t.access_refusal
    WHEN ${settingSql('reason_required', '$1')} AND btrim($9) = '' THEN 'REASON'
    WHEN ${settingSql('ticketing_enabled', '$1')} AND btrim($10) = '' THEN 'TICKETID'
  END AS refusal
  FROM target t
), logged AS (
  INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, client,
                     resource_id, resource_name, account_id, account_name, reason, ticket_id, description)
  SELECT org_id, 'Resource',
         CASE WHEN refusal IS NULL THEN '${AuditOperation.PasswordRetrieved}' ELSE '${AuditOperation.PasswordRetrievalDenied}' END,
         CASE WHEN refusal IS NULL THEN 'Success' ELSE 'Failed' END, $2, $6, $7, $8,
         rid, rname, id, name, $9, $10, coalesce('refused: ' || refusal, '')
  FROM verdict
  RETURNING id
)
SELECT CASE WHEN v.refusal IS NULL THEN v.password END AS password, v.refusal,
       (SELECT count(*) FROM logged)::int AS logged
FROM verdict v`;

export type PasswordRelease = { password: string } | { refusal: string; message: string; details?: Record<string, string> };

@Injectable()
export class PasswordReader {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
  ) {}

  /** GET PASSWORD: the password, or a Failed answer saying why it is withheld. */
  async read(actor: Actor, resourceId: number, accountId: number, reason = '', ticketId = ''): Promise<Reply> {
    const release = await this.release(actor, resourceId, accountId, reason, ticketId);
    if ('refusal' in release) throw new AppError(ErrorCode.Forbidden, release.message, release.details);
    return reply('Password fetched successfully', { PASSWORD: release.password });
  }

  /** The password or the refusal, audited either way; unknown or invisible accounts throw. */
  async release(actor: Actor, resourceId: number, accountId: number, reason = '', ticketId = ''): Promise<PasswordRelease> {
    const rows = await prepared<{ password: Buffer | null; refusal: Refusal | null; logged: number }>(
      pgPool(this.dataSource),
      'read_password',
      READ_PASSWORD,
      [
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
      ],
    );
    const row = rows[0];
    if (!row) throw AppError.notFound('No such account found');
    if (row.logged !== 1) throw new Error('Password read was not audited');
    if (row.refusal) return { refusal: row.refusal, ...REFUSALS[row.refusal] };
    const blob = row.password!;
    const password = this.keyring.openLoaded(blob, PASSWORD_CONTEXT) ?? (await this.keyring.open(blob, PASSWORD_CONTEXT));
    return { password: password.toString('utf8') };
  }
}
