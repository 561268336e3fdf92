import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError, listReply, reply, Reply } from '@app/http';
import { displayTime } from '../common/format';
import { isSelfOrControlled, resourceVisibleSql, samePerson, visibilityParams } from '@app/gate';
import { adminApprover, approverSql, effectiveAccessControl, isUniqueViolation, minutesSql } from './access-sql';
import { RequestNotices } from './request-notices';
import { RequestAccessDto } from './password-request.dto';
import { requestWindow } from './request-window';
import { explainMissing, noSuchRequest, STATUS_WAITING } from './request-state';

interface LockedRequest {
  id: number;
  status: string;
  requester_id: number;
  approvers_required: number;
  approved_by: number[];
  may_approve: boolean;
  approvers_changed_by: number | null;
  approvers_changed_since: boolean | null;
  visible: boolean;
  expired: boolean;
  request_ttl_minutes: number;
  org_id: number;
  resource_id: number;
  resource_name: string;
  account_id: number;
  account_name: string;
}

/** Ops 10-13: request, the approver's list, approve and reject. */
@Injectable()
export class PasswordRequestsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly notices: RequestNotices,
  ) {}

  async request(actor: Actor, accountId: number, dto: RequestAccessDto): Promise<Reply> {
    const reason = dto.REASON?.trim() ?? '';
    const window = requestWindow(dto);
    try {
      const made = await this.dataSource.transaction(async (m) => {
        const [target] = await m.query(
          `SELECT a.id, a.name, r.id AS resource_id, r.name AS resource_name, r.org_id, ac.id AS ac_id,
             ac.approval_required, ac.approvers_required, ac.request_ttl_minutes, ac.reason_required
           FROM accounts a JOIN resources r ON r.id = a.resource_id LEFT JOIN ${effectiveAccessControl('a')} ON true
           WHERE a.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })}`,
          [...visibilityParams(actor), accountId],
        );
        if (!target) throw AppError.notFound('No such account found');
        if (!target.ac_id) throw AppError.invalid('Password access control is not enabled for this account: retrieve the password directly');
        if (target.reason_required && !reason) throw AppError.invalid('REASON is required to request this password');
        const [created] = await m.query(
          `INSERT INTO password_requests (account_id, requester_id, status, reason, ticket_id, approvers_required, approved_by,
             window_start, window_end, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, '{}', $8, $9, coalesce($9, now() + ${minutesSql('$7::float8')})) RETURNING id`,
          [accountId, actor.id, target.approval_required ? 'waiting' : 'approved', reason, dto.TICKETID ?? '', target.approvers_required, target.request_ttl_minutes,
            window?.start ?? null, window?.end ?? null],
        );
        await this.audit.record(
          {
            category: 'Resource',
            operation: AuditOperation.PasswordRequested,
            actor,
            resourceId: target.resource_id,
            resourceName: target.resource_name,
            accountId,
            accountName: target.name,
            requestId: created.id,
            reason,
            ticketId: dto.TICKETID,
            description: [target.approval_required ? '' : 'Approval not required', window ? `For ${displayTime(window.start)} to ${displayTime(window.end)}` : '']
              .filter(Boolean)
              .join('; '),
          },
          m,
        );
        return { waiting: target.approval_required as boolean, id: created.id as number };
      });
      if (made.waiting) this.notices.requested(made.id, accountId, actor.id);
    } catch (error) {
      if (isUniqueViolation(error)) throw AppError.conflict('You already have an open request for this password');
      throw error;
    }
    return reply('Password requested successfully', { STATUS: STATUS_WAITING });
  }

  /** Requests waiting for the caller's decision, grouped by requester. */
  async pending(actor: Actor): Promise<Reply> {
    const rows: Record<string, any>[] = await this.dataSource.query(
      `SELECT pr.id, pr.requester_id, u.username, u.full_name, pr.reason, pr.requested_at, pr.expires_at, pr.window_start, pr.window_end,
         a.id AS account_id, a.name AS account_name, r.id AS resource_id, r.name AS resource_name
       FROM password_requests pr JOIN users u ON u.id = pr.requester_id
         JOIN accounts a ON a.id = pr.account_id JOIN resources r ON r.id = a.resource_id
         JOIN ${effectiveAccessControl('a')} ON true
       WHERE pr.status = 'waiting' AND pr.expires_at > now() AND r.org_id = $1 AND pr.requester_id <> $2
         AND NOT ($2 = ANY(pr.approved_by)) AND ${approverSql('ac', 'r', '$2', '$3')}
       ORDER BY u.username, pr.requester_id, pr.requested_at, pr.id`,
      [actor.orgId, actor.id, adminApprover(actor)],
    );
    const groups = new Map<number, Record<string, unknown> & { PASSWORDREQUESTLIST: unknown[] }>();
    for (const row of rows) {
      let group = groups.get(row.requester_id);
      if (!group) {
        group = {
          'REQUESTER USERID': String(row.requester_id),
          'REQUESTED BY': row.username,
          'REQUESTED BY FULLNAME': row.full_name || row.username,
          PASSWORDREQUESTLIST: [],
        };
        groups.set(row.requester_id, group);
      }
      group.PASSWORDREQUESTLIST.push({
        'REQUEST ID': String(row.id),
        'ACCOUNT ID': String(row.account_id),
        'ACCOUNT NAME': row.account_name,
        'RESOURCE ID': String(row.resource_id),
        'RESOURCE NAME': row.resource_name,
        'PASSWD ID': String(row.account_id),
        STATUS: 'WAITING FOR APPROVAL',
        'REQUESTED TIME': displayTime(row.requested_at),
        REASON: row.reason,
        START_TIME: displayTime(row.window_start ?? row.requested_at),
        END_TIME: displayTime(row.window_end ?? row.expires_at),
      });
    }
    return listReply('Password requests fetched successfully', [...groups.values()]);
  }

  approve(actor: Actor, accountId: number, requesterId: number): Promise<Reply> {
    return this.dataSource.transaction(async (m) => {
      const req = await this.lockForDecision(m, actor, accountId, requesterId, ['waiting']);
      if (req.approved_by.includes(actor.id)) throw AppError.conflict('You have already approved this request');
      // An approval is a check by someone who can see what they approve (issue 34): an approver the
      // account is not shared with may reject, never approve.
      if (!req.visible) throw AppError.forbidden('You cannot approve this request: the account is not shared with you (an approver must be able to see the account)');
      await refuseSamePerson(m, actor, req);
      const approvals = req.approved_by.length + 1;
      const done = approvals >= req.approvers_required;
      await m.query(
        `UPDATE password_requests SET approved_by = array_append(approved_by, $2),
           status = CASE WHEN $3 THEN 'approved' ELSE status END,
           decided_by = CASE WHEN $3 THEN $2 ELSE decided_by END,
           expires_at = CASE WHEN $3 THEN coalesce(window_end, now() + ${minutesSql('$4::float8')}) ELSE expires_at END
         WHERE id = $1`,
        [req.id, actor.id, done, req.request_ttl_minutes],
      );
      const left = req.approvers_required - approvals;
      await this.record(m, actor, req, AuditOperation.RequestApproved, '', done ? '' : `Approval ${approvals} of ${req.approvers_required}`);
      return { done, answer: reply(done ? 'Password request approved successfully' : `Approval recorded; ${left} more approval${left > 1 ? 's are' : ' is'} needed`) };
    }).then(({ done, answer }) => {
      if (done) this.notices.decided(accountId, requesterId, 'approved', actor.username);
      return answer;
    });
  }

  reject(actor: Actor, accountId: number, requesterId: number, reason = ''): Promise<Reply> {
    return this.dataSource.transaction(async (m) => {
      // An approved request may still be withdrawn until it is checked out.
      const req = await this.lockForDecision(m, actor, accountId, requesterId, ['waiting', 'approved']);
      await m.query(`UPDATE password_requests SET status = 'rejected', decided_by = $2 WHERE id = $1`, [req.id, actor.id]);
      await this.record(m, actor, req, AuditOperation.RequestRejected, reason, '');
      return reply('Password request rejected successfully');
    }).then((answer) => {
      this.notices.decided(accountId, requesterId, 'rejected', actor.username);
      return answer;
    });
  }

  /** The open, undecided request, locked; refuses the requester and non-approvers. */
  private async lockForDecision(
    m: EntityManager,
    actor: Actor,
    accountId: number,
    requesterId: number,
    statuses: string[],
  ): Promise<LockedRequest> {
    const [req] = await m.query(
      `SELECT pr.id, pr.status, pr.requester_id, pr.approvers_required, pr.approved_by, ac.request_ttl_minutes,
         ac.approvers_changed_by, ac.approvers_changed_at > pr.requested_at AS approvers_changed_since,
         r.org_id, r.id AS resource_id, r.name AS resource_name, a.id AS account_id, a.name AS account_name,
         coalesce(${approverSql('ac', 'r', '$3', '$4')}, false) AS may_approve, pr.expires_at <= now() AS expired,
         ${resourceVisibleSql('r', '$5', '$3', '$7', { account: 'a' })} AS visible
       FROM password_requests pr JOIN accounts a ON a.id = pr.account_id JOIN resources r ON r.id = a.resource_id
         LEFT JOIN ${effectiveAccessControl('a')} ON true
       WHERE pr.account_id = $1 AND pr.requester_id = $2 AND r.org_id = $5 AND pr.status = ANY($6)
       FOR UPDATE OF pr`,
      [accountId, requesterId, actor.id, adminApprover(actor), actor.orgId, statuses, actor.isSuperAdmin],
    );
    if (!req) throw await explainMissing(m, actor, accountId, requesterId);
    if (req.requester_id === actor.id) throw AppError.forbidden('You cannot approve or reject your own password request');
    if (!req.may_approve) {
      // Someone who neither sees the account nor approves for it is not told that it is requested.
      if (!req.visible) throw noSuchRequest();
      throw AppError.forbidden('You are not an approver of this password request');
    }
    if (req.expired) throw AppError.conflict('The password request has expired');
    return req;
  }

  private record(m: EntityManager, actor: Actor, req: LockedRequest, operation: string, reason: string, description: string) {
    return this.audit.record(
      {
        category: 'Resource',
        operation,
        actor,
        resourceId: req.resource_id,
        resourceName: req.resource_name,
        accountId: req.account_id,
        accountName: req.account_name,
        requestId: req.id,
        reason,
        description,
      },
      m,
    );
  }
}

/**
 * Approvers are distinct people (issue 34): an account the requester created is the
 * requester, and one person approving through two accounts (one created by the other) counts once.
 */
async function refuseSamePerson(m: EntityManager, actor: Actor, req: Pick<LockedRequest, 'requester_id' | 'approved_by' | 'approvers_changed_by' | 'approvers_changed_since'>): Promise<void> {
  if (await isSelfOrControlled(m, actor.id, req.requester_id)) {
    throw AppError.forbidden('You cannot approve this request: your account was created by the requester, which counts as the requester');
  }
  // Approvers the requester named after asking are the requester's choice, not a second person's check.
  if (req.approvers_changed_since && req.approvers_changed_by !== null && (await isSelfOrControlled(m, req.approvers_changed_by, req.requester_id))) {
    throw AppError.forbidden('You cannot approve this request: the requester changed the approvers after asking');
  }
  for (const earlier of req.approved_by) {
    if (await samePerson(m, actor.id, earlier)) throw AppError.conflict('This request was already approved by you through another account (one created by the other)');
  }
}
