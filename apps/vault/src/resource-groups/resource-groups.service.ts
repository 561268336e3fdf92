import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError, listReply, reply, Reply } from '@app/http';
import { parseId, parseIdList } from '../common/ids';
import { mayEditResourceGroup, resourceVisibleSql, visibilityParams } from '@app/gate';
import { GroupInput } from './group-criteria';
import { BulkShareGroupsDto, ShareGroupDto } from './resource-group.dto';
import { resourceListEntry } from '../resources/resources.service';

interface GroupRow {
  id: number;
  name: string;
  kind: 'static' | 'dynamic';
  created_by: number | null;
}

/**
 * Static and dynamic resource groups (op 50 and extensions). Membership (static lists and
 * rule matches) is kept in resource_group_membership by triggers in the writer's transaction,
 * which the visibility predicate also reads for group shares, so a new matching resource is
 * in the group at once.
 */
@Injectable()
export class ResourceGroupsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  async create(actor: Actor, input: GroupInput): Promise<Reply> {
    const id = await this.dataSource
      .transaction(async (m) => {
        const [existing] = await m.query('SELECT id FROM resource_groups WHERE org_id = $1 AND name_key = lower($2)', [actor.orgId, input.name]);
        if (existing) throw AppError.conflict(`Resource group ${input.name} already exists`);
        const [group] = await m.query(
          `INSERT INTO resource_groups (org_id, name, name_key, description, kind, match_mode, criteria, no_helpdesk_retrieval, created_by)
           VALUES ($1, $2, lower($2), $3, $4, $5, $6, $7, $8) RETURNING id`,
          [actor.orgId, input.name, input.description, input.kind, input.matchMode, JSON.stringify(input.criteria), input.noHelpdeskRetrieval, actor.id],
        );
        await this.audit.record(
          { category: 'Resource', operation: AuditOperation.ResourceGroupCreated, actor, target: input.name, description: describe(input) },
          m,
        );
        return group.id as number;
      })
      .catch((error: { code?: string }) => {
        if (error.code === '23505') throw AppError.conflict(`Resource group ${input.name} already exists`);
        throw error;
      });
    return reply(`Resource group ${input.name} created successfully`, { RESOURCEGROUPID: String(id) });
  }

  /** The group's resources that the caller may see (dynamic groups: matched now). */
  async resources(actor: Actor, groupId: number): Promise<Reply> {
    const group = await this.find(this.dataSource.manager, actor, groupId);
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT r.id, r.name, r.type, r.description, (SELECT count(*) FROM accounts a WHERE a.resource_id = r.id) AS n
       FROM resource_group_membership m JOIN resources r ON r.id = m.resource_id
       WHERE m.group_id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3')} ORDER BY r.name_key, r.id`,
      [...visibilityParams(actor), group.id],
    );
    return listReply(
      'Resources of the resource group fetched successfully',
      rows.map(resourceListEntry),
    );
  }

  async addResources(actor: Actor, groupId: number, ids: unknown): Promise<Reply> {
    const { group, count } = await this.changeMembers(actor, groupId, ids, 'add');
    return reply(`${count} resource(s) added to the resource group ${group.name}`);
  }

  async removeResources(actor: Actor, groupId: number, ids: unknown): Promise<Reply> {
    const { group, count } = await this.changeMembers(actor, groupId, ids, 'remove');
    return reply(`${count} resource(s) removed from the resource group ${group.name}`);
  }

  /**
   * A static group's membership, changed by its creator or a super administrator. A share of
   * the group reaches every member, so adding a resource hands out access to it; taking one
   * out lifts the group's NoHelpDeskRetrieval from it: both need full access to each
   * resource (owner, full share, super admin), and nothing changes unless all have it.
   */
  private async changeMembers(actor: Actor, groupId: number, ids: unknown, change: 'add' | 'remove'): Promise<{ group: GroupRow; count: number }> {
    const resourceIds = parseIdList(ids, 'RESOURCEIDS');
    const group = await this.find(this.dataSource.manager, actor, groupId);
    if (group.kind !== 'static') throw AppError.invalid(`Resource group ${group.name} is dynamic: resources join it by its criteria`);
    this.mayChange(actor, group);
    return this.dataSource.transaction(async (m) => {
      const visible: { id: number; name: string; full: boolean }[] = await m.query(
        `SELECT r.id, r.name, ${resourceVisibleSql('r', '$1', '$2', '$3', { atLeast: 'fullaccess' })} AS full
         FROM resources r WHERE r.id = ANY($4::int[]) AND ${resourceVisibleSql('r', '$1', '$2', '$3')}`,
        [...visibilityParams(actor), resourceIds],
      );
      const missing = resourceIds.find((id) => !visible.some((r) => r.id === id));
      if (missing !== undefined) throw AppError.notFound(`No such resource found: ${missing}`);
      const lacking = visible.find((r) => !r.full);
      if (lacking) throw AppError.forbidden(`You need full access to resource ${lacking.name} to ${change === 'add' ? 'add it to' : 'remove it from'} a resource group`);
      const changed: unknown[] =
        change === 'add'
          ? await m.query(
              `INSERT INTO resource_group_members (group_id, resource_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING RETURNING resource_id`,
              [group.id, resourceIds],
            )
          : (await m.query(`DELETE FROM resource_group_members WHERE group_id = $1 AND resource_id = ANY($2::int[]) RETURNING resource_id`, [group.id, resourceIds]))[0];
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.ResourceGroupModified,
          actor,
          target: group.name,
          description: `${change === 'add' ? 'added' : 'removed'} ${visible.map((r) => r.name).join(', ')}`.slice(0, 2000),
        },
        m,
      );
      return { group, count: changed.length };
    });
  }

  /**
   * Shares reach every member, including resources the sharer could not see; so only a
   * super administrator (who sees every resource of the organisation) may share a group.
   */
  async share(actor: Actor, groupId: number, dto: ShareGroupDto): Promise<Reply> {
    const { group, access } = await this.dataSource.transaction((m) => this.shareIn(m, actor, groupId, dto));
    return reply(access === 'revoke' ? `Sharing of resource group ${group.name} revoked` : `Resource group ${group.name} shared successfully`);
  }

  /**
   * PAM360's PUT /resourcegroup/share: every group to every user and user group named, each
   * pair decided and audited as one PUT .../{gid}/share, all in one transaction (one refusal
   * and nothing is shared).
   */
  async shareMany(actor: Actor, dto: BulkShareGroupsDto): Promise<Reply> {
    // Groups are locked in id order, so two overlapping bulk shares cannot deadlock.
    const groupIds = parseIdList(dto.resourceGroupIds, 'resourceGroupIds').sort((a, b) => a - b);
    const userIds = dto.userIds === undefined ? [] : parseIdList(dto.userIds, 'userIds');
    const userGroupIds = dto.userGroupIds === undefined ? [] : parseIdList(dto.userGroupIds, 'userGroupIds');
    if (!userIds.length && !userGroupIds.length) throw AppError.invalid('Give userIds or userGroupIds');
    const grantees: Pick<ShareGroupDto, 'USERID' | 'USERGROUPID'>[] = [
      ...userIds.map((id) => ({ USERID: String(id) })),
      ...userGroupIds.map((id) => ({ USERGROUPID: String(id) })),
    ];
    const access = await this.dataSource.transaction(async (m) => {
      let done: string = dto.accessType;
      for (const groupId of groupIds) {
        for (const grantee of grantees) done = (await this.shareIn(m, actor, groupId, { ACCESSTYPE: dto.accessType, ...grantee })).access;
      }
      return done;
    });
    const count = `${groupIds.length} resource group(s)`;
    return reply(access === 'revoke' ? `Sharing of ${count} revoked` : `${count} shared successfully`);
  }

  private async shareIn(m: EntityManager, actor: Actor, groupId: number, dto: ShareGroupDto): Promise<{ group: GroupRow; access: string }> {
    const group = await this.find(m, actor, groupId, true);
    if (!actor.isSuperAdmin) throw AppError.forbidden('Only a super administrator can share a resource group');
    const target = await this.shareTarget(m, actor, dto);
    const access = dto.ACCESSTYPE === 'read' ? 'view' : dto.ACCESSTYPE;
    await m.query(`DELETE FROM shares WHERE resource_group_id = $1 AND ${target.column} = $2`, [group.id, target.id]);
    if (access !== 'revoke') {
      await m.query(`INSERT INTO shares (resource_group_id, ${target.column}, access_type) VALUES ($1, $2, $3)`, [group.id, target.id, access]);
    }
    await this.audit.record(
      { category: 'Resource', operation: AuditOperation.ResourceGroupShared, actor, target: group.name, description: `${access} for ${target.label}` },
      m,
    );
    return { group, access };
  }

  async remove(actor: Actor, groupId: number): Promise<Reply> {
    const group = await this.find(this.dataSource.manager, actor, groupId);
    this.mayChange(actor, group);
    await this.dataSource.transaction(async (m) => {
      // Deleting a group that restricts its members (NoHelpDeskRetrieval) lifts that from each:
      // as taking them out one by one would, it needs full access to every member (issue 34).
      const [restricting] = await m.query('SELECT no_helpdesk_retrieval FROM resource_groups WHERE id = $1 FOR UPDATE', [group.id]);
      if (restricting?.no_helpdesk_retrieval && !actor.isSuperAdmin) {
        const [lacking] = await m.query(
          `SELECT r.name FROM resource_group_membership gm JOIN resources r ON r.id = gm.resource_id
           WHERE gm.group_id = $4 AND NOT ${resourceVisibleSql('r', '$1', '$2', '$3', { atLeast: 'fullaccess' })} ORDER BY r.id LIMIT 1`,
          [...visibilityParams(actor), group.id],
        );
        if (lacking) throw AppError.forbidden(`You need full access to every resource of ${group.name} to delete it: it restricts help-desk retrieval of them, and ${lacking.name} is not yours to release`);
      }
      await m.query('DELETE FROM resource_groups WHERE id = $1', [group.id]);
      await this.audit.record({ category: 'Resource', operation: AuditOperation.ResourceGroupDeleted, actor, target: group.name }, m);
    });
    return reply(`Resource group ${group.name} deleted successfully`);
  }

  /** The group of the caller's organisation; else Failed as not found. */
  findInOrganisation(actor: Actor, groupId: number): Promise<{ id: number; name: string }> {
    return this.find(this.dataSource.manager, actor, groupId);
  }

  /** The group, when the caller may change it (its creator or a super administrator); else Failed naming why. */
  async findChangeable(actor: Actor, groupId: number): Promise<{ id: number; name: string }> {
    const group = await this.find(this.dataSource.manager, actor, groupId);
    this.mayChange(actor, group);
    return group;
  }

  private async find(m: EntityManager, actor: Actor, groupId: number, lock = false): Promise<GroupRow> {
    const [group] = await m.query(`SELECT id, name, kind, created_by FROM resource_groups WHERE id = $1 AND org_id = $2${lock ? ' FOR UPDATE' : ''}`, [
      groupId,
      actor.orgId,
    ]);
    if (!group) throw AppError.notFound('No such resource group found');
    return group;
  }

  private mayChange(actor: Actor, group: GroupRow): void {
    if (!mayEditResourceGroup(actor, group)) {
      throw AppError.forbidden(`Only the creator of resource group ${group.name} or a super administrator can change it`);
    }
  }

  private async shareTarget(m: EntityManager, actor: Actor, dto: Pick<ShareGroupDto, 'USERID' | 'USERGROUPID'>): Promise<{ column: 'user_id' | 'user_group_id'; id: number; label: string }> {
    if (!!dto.USERID === !!dto.USERGROUPID) throw AppError.invalid('Give either USERID or USERGROUPID');
    if (dto.USERID) {
      const id = parseId(dto.USERID, 'USERID');
      const [user] = await m.query('SELECT username FROM users WHERE id = $1 AND org_id = $2', [id, actor.orgId]);
      if (!user) throw AppError.notFound('No such user found');
      return { column: 'user_id', id, label: `user ${user.username}` };
    }
    const id = parseId(dto.USERGROUPID, 'USERGROUPID');
    const [group] = await m.query('SELECT name FROM user_groups WHERE id = $1 AND org_id = $2', [id, actor.orgId]);
    if (!group) throw AppError.notFound('No such user group found');
    return { column: 'user_group_id', id, label: `user group ${group.name}` };
  }
}

function describe(input: GroupInput): string {
  if (input.kind === 'static') return 'static group';
  return input.criteria.map((c) => `${c.field} ${c.operator} "${c.value}"`).join(` ${input.matchMode.toUpperCase()} `).slice(0, 2000);
}
