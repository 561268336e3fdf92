import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError, reply, Reply } from '@app/http';
import { parseId, parseIdList } from '../common/ids';
import { ManageOrgAccessDto } from './user.dto';

/**
 * PAM360's POST /organizations/manage: grants or revokes access to other organisations for
 * users and user groups of the first (provider) organisation; a grant lets them act there with
 * the orgName header under their own role (actorInOrg). Only a super administrator of the
 * provider organisation decides, as only it may act in every organisation anyway.
 */
@Injectable()
export class OrganizationAccessService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  async manage(actor: Actor, dto: ManageOrgAccessDto): Promise<Reply> {
    const home = actor.homeOrgId ?? actor.orgId;
    const userIds = dto.userIds === undefined ? [] : parseIdList(dto.userIds, 'userIds');
    const groupIds = dto.userGroupIds === undefined ? [] : parseIdList(dto.userGroupIds, 'userGroupIds');
    if (!userIds.length && !groupIds.length) throw AppError.invalid('Give userIds or userGroupIds');
    const orgIds = parseIdList(dto.orgIds, 'orgIds').sort((a, b) => a - b);
    const grant = dto.managePermission === 'grant';
    await this.dataSource.transaction(async (m) => {
      const [provider] = await m.query('SELECT min(id) AS id FROM organizations');
      if (!actor.isSuperAdmin || home !== provider.id) {
        throw AppError.forbidden('Only a super administrator of the provider organisation can manage organisation access');
      }
      const users = await namesIn(m, 'users', 'username', home, userIds, 'No such user found');
      const groups = await namesIn(m, 'user_groups', 'name', home, groupIds, 'No such user group found');
      const approver = dto.approvalAdminId === undefined || dto.approvalAdminId === '' ? undefined : await approverOf(m, home, dto.approvalAdminId);
      const orgs: { id: number; name: string }[] = await m.query('SELECT id, name FROM organizations WHERE id = ANY($1::int[]) AND id <> $2 ORDER BY id', [orgIds, home]);
      const missing = orgIds.find((id) => !orgs.some((o) => o.id === id));
      if (missing !== undefined) throw AppError.notFound(`No such organisation found: ${missing}`);
      for (const org of orgs) {
        if (grant) {
          await m.query(
            `INSERT INTO organization_access (org_id, user_id, granted_by) SELECT $1, unnest($2::int[]), $3 ON CONFLICT DO NOTHING`,
            [org.id, userIds, actor.id],
          );
          await m.query(
            `INSERT INTO organization_access (org_id, user_group_id, granted_by) SELECT $1, unnest($2::int[]), $3 ON CONFLICT DO NOTHING`,
            [org.id, groupIds, actor.id],
          );
        } else {
          await m.query('DELETE FROM organization_access WHERE org_id = $1 AND (user_id = ANY($2::int[]) OR user_group_id = ANY($3::int[]))', [org.id, userIds, groupIds]);
          await lockAccountsMadeThrough(m, this.audit, actor, org);
        }
        // Audited in the organisation opened (its auditors see who may enter) and in the provider's.
        const description = [
          users.length ? `users ${users.join(', ')}` : '',
          groups.length ? `user groups ${groups.join(', ')}` : '',
          approver ? `approved by ${approver}` : '',
        ].filter(Boolean).join('; ').slice(0, 2000);
        const operation = grant ? AuditOperation.OrganizationAccessGranted : AuditOperation.OrganizationAccessRevoked;
        await this.audit.record({ category: 'User', operation, actor, orgId: org.id, target: org.name, description }, m);
        await this.audit.record({ category: 'User', operation, actor, orgId: home, target: org.name, description }, m);
      }
    });
    return reply(grant ? 'Organization access granted successfully' : 'Organization access revoked successfully');
  }
}

/**
 * Accounts made inside an organisation through a grant (their controller is an outsider, not a
 * super administrator) outlive the grant only if they are locked with it: a revoked user must
 * not keep an Administrator of their own making there (issue 34). Each lock is audited there.
 */
async function lockAccountsMadeThrough(m: EntityManager, audit: AuditWriter, actor: Actor, org: { id: number; name: string }): Promise<void> {
  const [locked]: [{ username: string; controller: string }[], number] = await m.query(
    `UPDATE users u SET locked = true, updated_at = now() FROM users c
     WHERE u.org_id = $1 AND u.controller_id = c.id AND c.org_id <> $1 AND NOT c.is_super_admin AND NOT u.locked
       AND c.id NOT IN (SELECT user_id FROM organization_access WHERE org_id = $1 AND user_id IS NOT NULL
                        UNION SELECT gm.user_id FROM organization_access oa JOIN user_group_members gm ON gm.group_id = oa.user_group_id WHERE oa.org_id = $1)
     RETURNING u.username, c.username AS controller`,
    [org.id],
  );
  for (const row of locked) {
    await audit.record(
      { category: 'User', operation: AuditOperation.UserLocked, actor, orgId: org.id, target: row.username, description: `made by ${row.controller} through organisation access, now revoked` },
      m,
    );
  }
}

/** The names of rows `ids` of `table` in organisation `orgId`; any other id is refused. */
async function namesIn(m: EntityManager, table: 'users' | 'user_groups', column: string, orgId: number, ids: number[], missing: string): Promise<string[]> {
  if (!ids.length) return [];
  const rows: { id: number; name: string }[] = await m.query(`SELECT id, ${column} AS name FROM ${table} WHERE org_id = $1 AND id = ANY($2::int[])`, [orgId, ids]);
  const unknown = ids.find((id) => !rows.some((r) => r.id === id));
  if (unknown !== undefined) throw AppError.notFound(`${missing}: ${unknown}`);
  return rows.map((r) => r.name);
}

async function approverOf(m: EntityManager, orgId: number, value: unknown): Promise<string> {
  const id = parseId(value, 'approvalAdminId');
  const [user] = await m.query(`SELECT username FROM users WHERE id = $1 AND org_id = $2 AND role IN ('Administrator', 'Privileged Administrator')`, [id, orgId]);
  if (!user) throw AppError.notFound(`No administrator with approvalAdminId ${id}`);
  return user.username;
}
