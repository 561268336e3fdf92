import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { underAccessControlSql } from '@app/gate';
import { AppError, reply, Reply } from '@app/http';
import { findAccount, findResource } from '../common/access';
import { formatTime } from './rotation-schedule';

const MAX_GRACE_MINUTES = 7 * 24 * 60;

export interface DualAccountInput {
  partnerName: string;
  graceMinutes: number;
}

/**
 * CONFIGURE DUAL ACCOUNT: two accounts of one resource with the same rights on the target
 * become a pair under the first (the head). Reads of the head answer the current member;
 * a rotation changes the other member, verifies it, and makes it current (RemoteAccountRotator).
 *
 * Pairing decides who may see a secret (a reader of the head reads the partner's password),
 * so it needs full access to the resource, and the partner may not be under access control
 * the head is not under (or a pair would read around it).
 */
@Injectable()
export class DualAccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  configure(actor: Actor, resourceId: number, accountId: number, input: DualAccountInput): Promise<Reply> {
    return this.dataSource.transaction(async (m) => {
      const resource = await findResource(m, actor, resourceId, 'fullaccess', true);
      const head = await findAccount(m, actor, resourceId, accountId, 'fullaccess', true);
      const [asPartner] = await m.query('SELECT name FROM accounts WHERE dual_partner_id = $1', [head.id]);
      if (asPartner) throw AppError.invalid(`Account ${head.name} is already the partner of ${asPartner.name}`);
      if (!input.partnerName) {
        await m.query('UPDATE accounts SET dual_partner_id = NULL, dual_current_id = NULL, dual_grace_minutes = NULL, dual_switched_at = NULL WHERE id = $1', [head.id]);
        await this.record(m, actor, resource, head, 'Pair dissolved; reads answer the account itself');
        return reply(`Account ${head.name} is no longer a dual account`, await this.details(head.id));
      }
      const [partner] = await m.query(
        `SELECT a.id, a.name, a.dual_partner_id IS NOT NULL AS is_head,
           EXISTS (SELECT 1 FROM accounts h WHERE h.dual_partner_id = a.id AND h.id <> $3) AS is_partner,
           ${underAccessControlSql('a', 'r')} AS controlled,
           (SELECT ${underAccessControlSql('h', 'r')} FROM accounts h WHERE h.id = $3) AS head_controlled
         FROM accounts a JOIN resources r ON r.id = a.resource_id
         WHERE a.resource_id = $1 AND a.name_key = lower($2) FOR UPDATE OF a`,
        [resource.id, input.partnerName, head.id],
      );
      if (!partner) throw AppError.notFound(`No account named ${input.partnerName} in resource ${resource.name}`);
      if (partner.id === head.id) throw AppError.invalid('PARTNERACCOUNTNAME must name another account of the resource');
      if (partner.is_head || partner.is_partner) throw AppError.invalid(`Account ${partner.name} is already in a dual account pair`);
      if (partner.controlled && !partner.head_controlled) {
        throw AppError.forbidden(`Account ${partner.name} is under access control and ${head.name} is not: reads of the pair would not be controlled`);
      }
      await m.query(
        `UPDATE accounts SET dual_partner_id = $2, dual_grace_minutes = $3,
           dual_current_id = CASE WHEN dual_partner_id IS NOT DISTINCT FROM $2 THEN dual_current_id ELSE id END,
           dual_switched_at = CASE WHEN dual_partner_id IS NOT DISTINCT FROM $2 THEN dual_switched_at ELSE now() END
         WHERE id = $1`,
        [head.id, partner.id, input.graceMinutes],
      );
      await this.record(m, actor, resource, head, `Paired with ${partner.name}, grace ${input.graceMinutes} minutes`);
      return reply(`Account ${head.name} is now a dual account with ${partner.name}`, await this.details(head.id, m));
    });
  }

  async show(actor: Actor, resourceId: number, accountId: number): Promise<Reply> {
    const head = await findAccount(this.dataSource.manager, actor, resourceId, accountId);
    return reply(`Dual account of ${head.name} fetched successfully`, await this.details(head.id));
  }

  private async details(headId: number, m = this.dataSource.manager): Promise<Record<string, string>> {
    const [row] = await m.query(
      `SELECT p.name AS partner, cur.name AS current, a.dual_grace_minutes AS grace, a.dual_switched_at AS switched_at,
         (SELECT greatest(min(s.next_run), a.dual_switched_at + make_interval(secs => a.dual_grace_minutes * 60))
          FROM rotation_schedules s JOIN resource_group_membership gm ON gm.group_id = s.group_id
          WHERE gm.resource_id = a.resource_id AND s.enabled) AS next_switch
       FROM accounts a LEFT JOIN accounts p ON p.id = a.dual_partner_id LEFT JOIN accounts cur ON cur.id = a.dual_current_id
       WHERE a.id = $1`,
      [headId],
    );
    if (!row?.partner) return { DUALACCOUNT: 'false', PARTNERACCOUNTNAME: '', CURRENTACCOUNTNAME: '', GRACEMINUTES: '', LASTSWITCH: '', NEXTSWITCH: '' };
    return {
      DUALACCOUNT: 'true',
      PARTNERACCOUNTNAME: row.partner,
      CURRENTACCOUNTNAME: row.current ?? '',
      GRACEMINUTES: String(Number(row.grace)),
      LASTSWITCH: formatTime(row.switched_at),
      NEXTSWITCH: formatTime(row.next_switch),
    };
  }

  private record(m: Parameters<AuditWriter['record']>[1], actor: Actor, resource: { id: number; name: string }, head: { id: number; name: string }, description: string) {
    return this.audit.record(
      {
        category: 'Resource',
        operation: AuditOperation.DualAccountConfigured,
        actor,
        resourceId: resource.id,
        resourceName: resource.name,
        accountId: head.id,
        accountName: head.name,
        description,
      },
      m,
    );
  }
}

/** PARTNERACCOUNTNAME (empty dissolves the pair) and GRACEMINUTES (0 to a week, fractions allowed). */
export function parseDualAccount(read: (name: string) => unknown): DualAccountInput {
  const partner = read('PARTNERACCOUNTNAME');
  if (partner === undefined) throw AppError.invalid('PARTNERACCOUNTNAME is required (empty to dissolve the pair)');
  const partnerName = String(partner).trim();
  const graceText = String(read('GRACEMINUTES') ?? '').trim();
  if (partnerName && !graceText) throw AppError.invalid('GRACEMINUTES is required');
  const graceMinutes = graceText ? Number(graceText) : 0;
  if (!/^\d+(\.\d+)?$/.test(graceText || '0') || graceMinutes > MAX_GRACE_MINUTES) {
    throw AppError.invalid(`GRACEMINUTES must be a number of minutes from 0 to ${MAX_GRACE_MINUTES}`);
  }
  return { partnerName, graceMinutes };
}
