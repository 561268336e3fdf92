import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError, reply, Reply } from '@app/http';
import { findAccount, findResource } from '../common/access';
import { parseId } from '../common/ids';
import { AccessLevel, groupIncludesSelf, isSelfOrControlled } from '@app/gate';
import { ShareDto } from './share.dto';

interface Grantee {
  column: 'user_id' | 'user_group_id';
  id: number;
  label: string;
  ownerId?: number;
}

/**
 * PUT .../share: grants, changes or revokes one user's or user group's access to a
 * resource or to one account. One share per grantee and target: a new grant replaces
 * the old. Needs full access to what is shared.
 */
@Injectable()
export class SharingService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  async shareResource(actor: Actor, resourceId: number, dto: ShareDto): Promise<Reply> {
    await this.dataSource.transaction(async (m) => {
      const resource = await findResource(m, actor, resourceId, 'fullaccess', true);
      const grantee = await findGrantee(m, actor, dto);
      await this.refuseSelfGrant(m, actor, grantee, dto, { resourceId: resource.id, resourceName: resource.name });
      if (grantee.column === 'user_id' && grantee.id === resource.owner_id) throw AppError.invalid(`${grantee.label} owns resource ${resource.name}`);
      const level = await this.apply(m, resource.id, null, grantee, dto);
      await this.audit.record(
        { category: 'Resource', operation: AuditOperation.ResourceShared, actor, resourceId: resource.id, resourceName: resource.name, target: grantee.label, description: describe(level, grantee) },
        m,
      );
    });
    return reply(dto.ACCESSTYPE === 'revoke' ? 'Resource share revoked successfully' : 'Resource shared successfully');
  }

  async shareAccount(actor: Actor, resourceId: number, accountId: number, dto: ShareDto): Promise<Reply> {
    await this.dataSource.transaction(async (m) => {
      const account = await findAccount(m, actor, resourceId, accountId, 'fullaccess', true);
      const grantee = await findGrantee(m, actor, dto);
      await this.refuseSelfGrant(m, actor, grantee, dto, { resourceId: account.resource_id, resourceName: account.resource_name, accountId: account.id, accountName: account.name });
      const level = await this.apply(m, account.resource_id, account.id, grantee, dto);
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.AccountShared,
          actor,
          resourceId: account.resource_id,
          resourceName: account.resource_name,
          accountId: account.id,
          accountName: account.name,
          target: grantee.label,
          description: describe(level, grantee),
        },
        m,
      );
    });
    return reply(dto.ACCESSTYPE === 'revoke' ? 'Account share revoked successfully' : 'Account shared successfully');
  }

  /**
   * No self-elevation (issue 24): only a super administrator grants to themselves or to a
   * user group they belong to. The refusal is audited on its own connection (it outlives the
   * rollback). Revoking is never a widening.
   */
  private async refuseSelfGrant(
    m: EntityManager,
    actor: Actor,
    grantee: Grantee,
    dto: ShareDto,
    target: { resourceId: number; resourceName: string; accountId?: number; accountName?: string },
  ): Promise<void> {
    if (dto.ACCESSTYPE === 'revoke' || actor.isSuperAdmin) return;
    // An account the caller created counts as the caller (issue 34).
    const self = grantee.column === 'user_id' ? await isSelfOrControlled(m, grantee.id, actor.id) : await groupIncludesSelf(m, grantee.id, actor);
    if (!self) return;
    await this.audit.record({
      category: 'Resource',
      operation: target.accountId ? AuditOperation.AccountShared : AuditOperation.ResourceShared,
      outcome: 'Failed',
      actor,
      ...target,
      target: grantee.label,
      description: `refused: ${dto.ACCESSTYPE} access to ${grantee.label}, which is or includes the caller or an account the caller created`,
    });
    throw AppError.forbidden('Only a super administrator can share to themselves, to an account they created, or to a user group that includes either');
  }

  /** Replaces the grantee's share on the target; the caller holds the row lock of the target. */
  private async apply(m: EntityManager, resourceId: number, accountId: number | null, grantee: Grantee, dto: ShareDto): Promise<AccessLevel | 'revoke'> {
    await m.query(
      `DELETE FROM shares WHERE resource_id = $1 AND account_id IS NOT DISTINCT FROM $2 AND ${grantee.column} = $3`,
      [resourceId, accountId, grantee.id],
    );
    if (dto.ACCESSTYPE === 'revoke') return 'revoke';
    const level: AccessLevel = dto.ACCESSTYPE === 'read' ? 'view' : dto.ACCESSTYPE;
    await m.query(`INSERT INTO shares (resource_id, account_id, ${grantee.column}, access_type) VALUES ($1, $2, $3, $4)`, [
      resourceId,
      accountId,
      grantee.id,
      level,
    ]);
    return level;
  }
}

async function findGrantee(m: EntityManager, actor: Actor, dto: ShareDto): Promise<Grantee> {
  if (!dto.USERID === !dto.USERGROUPID) throw AppError.invalid('Give either USERID or USERGROUPID');
  if (dto.USERID) {
    const id = parseId(dto.USERID, 'USERID');
    const [user] = await m.query('SELECT id, username FROM users WHERE id = $1 AND org_id = $2', [id, actor.orgId]);
    if (!user) throw AppError.notFound(`No user with USERID ${id}`);
    return { column: 'user_id', id, label: `user ${user.username}` };
  }
  const id = parseId(dto.USERGROUPID, 'USERGROUPID');
  const [group] = await m.query('SELECT id, name FROM user_groups WHERE id = $1 AND org_id = $2', [id, actor.orgId]);
  if (!group) throw AppError.notFound(`No user group with USERGROUPID ${id}`);
  return { column: 'user_group_id', id, label: `user group ${group.name}` };
}

function describe(level: AccessLevel | 'revoke', grantee: Grantee): string {
  return level === 'revoke' ? `revoked from ${grantee.label}` : `${level} access to ${grantee.label}`;
}
