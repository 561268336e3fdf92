import { Inject, Injectable, Logger } from '@nestjs/common';
import { hostname } from 'node:os';
import { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/config';
import { isAdministrativeRole, Permission, ROLE_PERMISSIONS, roleHas } from '@app/auth';
import { resourceVisibleSql } from '@app/gate';
import { MetricsService } from '@app/observability';
import { ExpiryChannels } from '@app/pki/expiry-notices';
import { approverSql, effectiveAccessControl } from './access-sql';

const ROLES = Object.keys(ROLE_PERMISSIONS);
const ORG_APPROVERS = ROLES.filter(isAdministrativeRole);
const OWNER_APPROVERS = ROLES.filter((r) => !isAdministrativeRole(r) && roleHas(r, Permission.RequestApprove));

interface Subject {
  resource: string;
  account: string;
  requester: string;
  requesterEmail: string;
}

/**
 * Mail about password requests (issue 36): when a request needs a decision, one mail to each
 * user who may decide it (the approver rule of the workflow, and the account visible to them);
 * when it is decided, one to the requester. No password and no reason text in any mail (the
 * reason is read in the console). Sent after the request is committed, by the notice channels
 * (SMTP_*); a mail that fails is logged and counted (credvault_request_notices_total), never
 * failing the request.
 */
@Injectable()
export class RequestNotices {
  private readonly logger = new Logger('RequestNotices');
  private readonly sent: Counter<'event' | 'outcome'>;
  /** Where the links in the mails point: CONSOLE_URL, else this vault's own address. */
  private readonly console: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: ExpiryChannels,
    metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.console = (config.consoleUrl ?? `${config.tlsMode === 'off' ? 'http' : 'https'}://${hostname()}:${config.vaultPort}`).replace(/\/+$/, '') + '/console';
    this.sent = new Counter({ name: 'credvault_request_notices_total', help: 'Mails about password requests, by event and outcome', labelNames: ['event', 'outcome'], registers: [metrics.registry] });
    for (const event of ['requested', 'decided']) for (const outcome of ['sent', 'failed']) this.sent.inc({ event, outcome }, 0);
  }

  /** Fire and forget: the caller's answer never waits for mail. */
  requested(requestId: number, accountId: number, requesterId: number): void {
    void this.send('requested', async () => {
      const subject = await this.subject(accountId, requesterId);
      const [row] = await this.dataSource.query(
        `SELECT coalesce(array_agg(DISTINCT u.email) FILTER (WHERE u.email <> ''), '{}') AS emails
         FROM accounts a JOIN resources r ON r.id = a.resource_id LEFT JOIN ${effectiveAccessControl('a')} ON true
           JOIN users u ON u.org_id = r.org_id AND u.id <> $2 AND NOT u.locked
         WHERE a.id = $1 AND ac.id IS NOT NULL
           AND ${approverSql('ac', 'r', 'u.id', `(CASE WHEN u.role = ANY($3) THEN 'org' WHEN u.role = ANY($4) THEN 'owner' ELSE 'none' END)`)}
           AND ${resourceVisibleSql('r', 'r.org_id', 'u.id', 'u.is_super_admin', { account: 'a' })}`,
        [accountId, requesterId, ORG_APPROVERS, OWNER_APPROVERS],
      );
      return {
        subject: `Password request: ${subject.requester} asks for ${subject.account} on ${subject.resource}`,
        text: [
          `${subject.requester} asks for the password of ${subject.account} on ${subject.resource}.`,
          '',
          `Decide on the console, where the reason is shown: ${this.console}/approvals#request-${requestId}`,
        ].join('\n'),
        recipients: row.emails as string[],
        webhook: { event: 'password.request_waiting', resource: subject.resource, account: subject.account, requester: subject.requester },
      };
    });
  }

  decided(accountId: number, requesterId: number, decision: 'approved' | 'rejected', by: string): void {
    void this.send('decided', async () => {
      const subject = await this.subject(accountId, requesterId);
      return {
        subject: `Your password request was ${decision}: ${subject.account} on ${subject.resource}`,
        text: `Your request for the password of ${subject.account} on ${subject.resource} was ${decision} by ${by}.\n\nSee My check-outs on the console: ${this.console}/checkouts`,
        recipients: subject.requesterEmail ? [subject.requesterEmail] : [],
        webhook: { event: `password.request_${decision}`, resource: subject.resource, account: subject.account, requester: subject.requester, by },
      };
    });
  }

  private async subject(accountId: number, requesterId: number): Promise<Subject> {
    const [row] = await this.dataSource.query(
      `SELECT r.name AS resource, a.name AS account, u.username AS requester, u.email AS "requesterEmail"
       FROM accounts a JOIN resources r ON r.id = a.resource_id JOIN users u ON u.id = $2 WHERE a.id = $1`,
      [accountId, requesterId],
    );
    return row;
  }

  private async send(event: 'requested' | 'decided', build: () => Promise<{ subject: string; text: string; recipients: string[]; webhook: Record<string, unknown> }>): Promise<void> {
    if (!this.channels.enabled) return;
    try {
      const notice = await build();
      if (notice.recipients.length === 0) return;
      await this.channels.deliver({ ...notice, webhook: notice.webhook });
      this.sent.inc({ event, outcome: 'sent' });
    } catch (error) {
      this.sent.inc({ event, outcome: 'failed' });
      this.logger.warn(`Password request mail (${event}) not sent: ${(error as Error).message}`);
    }
  }
}
