import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { ExpiryChannels } from '@app/pki/expiry-notices';
import { Verification } from './remote-change';

/**
 * Keeps a verification's result on the account (status and time), audits it, and sends an
 * OUT OF SYNC result by the notice channels the certificate expiry notices use (mail to
 * the resource owner, the webhook).
 */
@Injectable()
export class SyncRecorder {
  private readonly logger = new Logger('PasswordSync');

  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly channels: ExpiryChannels,
  ) {}

  async record(accountId: number, result: Verification, actor: Actor | null, startedBy?: string): Promise<void> {
    // An UPDATE's answer through TypeORM is [rows, count].
    const [[row]] = await this.dataSource.query(
      `WITH before AS (SELECT password_status FROM accounts WHERE id = $1)
       UPDATE accounts a SET password_status = $2, last_verified_at = now(), verify_claimed_at = NULL
       FROM resources r LEFT JOIN users u ON u.id = r.owner_id
       WHERE a.id = $1 AND r.id = a.resource_id
       RETURNING a.id, a.name, r.id AS resource_id, r.name AS resource_name, r.org_id, u.email, (SELECT password_status FROM before) AS previous`,
      [accountId, result.status],
    );
    if (!row) return;
    const outOfSync = result.status === 'OUT OF SYNC';
    await this.audit.record({
      category: 'Resource',
      operation: outOfSync ? AuditOperation.PasswordOutOfSync : AuditOperation.PasswordVerified,
      outcome: result.status === 'IN SYNC' ? 'Success' : 'Failed',
      actor,
      orgId: row.org_id,
      resourceId: row.resource_id,
      resourceName: row.resource_name,
      accountId,
      accountName: row.name,
      description: `${result.status}: ${result.message}${startedBy ? `; started by ${startedBy}` : ''}`.slice(0, 2000),
    });
    if (outOfSync && this.channels.enabled) {
      await this.channels
        .deliver({
          subject: `Stored password of ${row.name} on ${row.resource_name} is out of sync`,
          text: [
            `The password the vault stores for ${row.name} on ${row.resource_name} no longer logs in to the target.`,
            '',
            result.message,
            '',
            `Reconcile it with POST /restapi/json/v1/resources/${row.resource_id}/accounts/${accountId}/reconcile,`,
            'or store the password the target holds now.',
          ].join('\n'),
          recipients: row.email ? [row.email] : [],
          webhook: { event: 'password.out_of_sync', resourceId: row.resource_id, resourceName: row.resource_name, accountId, accountName: row.name, message: result.message },
        })
        .catch((error: Error) => this.logger.warn(`Out-of-sync notice for account ${accountId} not sent: ${error.message}`));
    }
  }
}
