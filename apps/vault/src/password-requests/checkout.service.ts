import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError, reply, Reply } from '@app/http';
import { displayTime } from '../common/format';
import { resourceVisibleSql } from '@app/gate';
import { IN_USE_STATUSES } from '@app/gate';
import { adminApprover, approverSql, effectiveAccessControl, isUniqueViolation, minutesSql } from './access-sql';
import { CHECKIN_COLUMNS, CHECKIN_FROM, CheckinFinisher, CheckinRow } from './checkin-finisher';
import { ALREADY_CHECKED_OUT, explainMissing, mayKnowRequestsSql, noSuchRequest, STATUS_CHECKED_OUT } from './request-state';

/** Ops 14 and 15: check-out of an approved request, check-in by the user or an approver. */
@Injectable()
export class CheckoutService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly finisher: CheckinFinisher,
  ) {}

  async checkout(actor: Actor, accountId: number, reason = ''): Promise<Reply> {
    // A lapsed check-out is over: end it now (with its reset) rather than wait for the sweeper.
    for (let i = 0; i < 3 && (await this.finisher.checkInLapsed(accountId)); i++);
    try {
      await this.dataSource.transaction(async (m) => {
        const [req] = await m.query(
          `SELECT pr.id, pr.status, pr.expires_at <= now() AS expired, pr.window_start > now() AS early, pr.window_start, pr.window_end,
             a.name AS account_name, r.id AS resource_id,
             r.name AS resource_name, ac.id AS ac_id, ac.exclusive, ac.checkout_minutes, ac.reason_required
           FROM password_requests pr JOIN accounts a ON a.id = pr.account_id JOIN resources r ON r.id = a.resource_id
             LEFT JOIN ${effectiveAccessControl('a')} ON true
           WHERE pr.account_id = $4 AND pr.requester_id = $2 AND pr.status = 'approved'
             AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })}
           FOR UPDATE OF pr`,
          [actor.orgId, actor.id, actor.isSuperAdmin, accountId],
        );
        if (!req) throw await explainMissing(m, actor, accountId, actor.id);
        if (req.expired) throw AppError.conflict('The password request has expired');
        if (req.early) throw AppError.conflict(`The password request is for ${displayTime(req.window_start)} to ${displayTime(req.window_end)}: check it out from ${displayTime(req.window_start)}`);
        if (!req.ac_id) throw AppError.invalid('Password access control is no longer enabled for this account: retrieve the password directly');
        if (req.reason_required && !reason.trim()) throw AppError.invalid('REASON is required to check out this password');
        // Check-outs of one account queue on its row; the unique index is the backstop.
        await m.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
        const [holder] = await m.query(
          `SELECT id FROM password_requests WHERE account_id = $1 AND id <> $2 AND status IN ${IN_USE_STATUSES}
             AND (exclusive OR $3) LIMIT 1`,
          [accountId, req.id, req.exclusive],
        );
        if (holder) throw AppError.conflict(ALREADY_CHECKED_OUT);
        await m.query(
          `UPDATE password_requests SET status = 'checked_out', exclusive = $2, checked_out_at = now(),
             checkout_until = least(now() + ${minutesSql('$3::float8')}, window_end) WHERE id = $1`,
          [req.id, req.exclusive, req.checkout_minutes],
        );
        await this.audit.record(
          {
            category: 'Resource',
            operation: AuditOperation.PasswordCheckedOut,
            actor,
            resourceId: req.resource_id,
            resourceName: req.resource_name,
            accountId,
            accountName: req.account_name,
            requestId: req.id,
            reason,
            description: `For ${req.checkout_minutes} min${req.window_end ? ` at most, to the end of its window ${displayTime(req.window_end)}` : ''}${req.exclusive ? ', exclusive' : ''}`,
          },
          m,
        );
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw AppError.conflict(ALREADY_CHECKED_OUT);
      throw error;
    }
    return reply('Password checked out successfully', { STATUS: STATUS_CHECKED_OUT });
  }

  /** By the requester, or by someone who may approve requests for the account. */
  async checkin(actor: Actor, accountId: number, requesterId: number, reason = ''): Promise<Reply> {
    const remote = await this.dataSource.transaction(async (m) => {
      const [row]: (CheckinRow & { may_manage: boolean; may_know: boolean })[] = await m.query(
        `SELECT ${CHECKIN_COLUMNS}, coalesce(${approverSql('ac', 'r', '$3', '$4')}, $4 = 'org') AS may_manage,
           ${mayKnowRequestsSql('a', 'r', 'ac', '$5', '$3', '$6', '$4')} AS may_know
         FROM ${CHECKIN_FROM}
         WHERE pr.account_id = $1 AND pr.requester_id = $2 AND r.org_id = $5 AND pr.status = 'checked_out'
         FOR UPDATE OF pr`,
        [accountId, requesterId, actor.id, adminApprover(actor), actor.orgId, actor.isSuperAdmin],
      );
      if (!row) throw await explainMissing(m, actor, accountId, requesterId);
      if (row.requester_id !== actor.id && !row.may_manage) {
        // Someone who does not see the account is not told that it is checked out.
        if (!row.may_know) throw noSuchRequest();
        throw AppError.forbidden('Only the user who checked the password out or an approver can check it in');
      }
      return (await this.finisher.finish(m, row, actor, reason)) ? row.id : null;
    });
    if (remote !== null) await this.finisher.completeRemote(remote, actor);
    return reply('Password checked in successfully');
  }
}
