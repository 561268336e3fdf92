import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError, listReply, reply, Reply } from '@app/http';
import { parseId } from '../common/ids';
import { mayEditResourceGroup, resourceVisibleSql, visibilityParams } from '@app/gate';
import { GroupInput } from './group-criteria';
import { ShareGroupDto } from './resource-group.dto';
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

  async list(actor: Actor): Promise<Reply> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT g.id, g.name, g.description, g.kind, g.match_mode, g.criteria, g.no_helpdesk_retrieval,
         (SELECT count(*) FROM resource_group_membership m JOIN resources r ON r.id = m.resource_id
          WHERE m.group_id = g.id AND ${resourceVisibleSql('r', '$1', '$2', '$3')}) AS n
       FROM resource_groups g WHERE g.org_id = $1 ORDER BY g.name_key`,
      visibilityParams(actor),
    );
    return listReply(
      'Resource groups fetched successfully',
      rows.map((g) => ({
        RESOURCEGROUPID: String(g.id),
        RESOURCEGROUPNAME: g.name,
        DESCRIPTION: g.description,
        GROUPTYPE: g.kind === 'static' ? 'Static' : 'Dynamic',
        andor: g.match_mode,
        CRITERIA: g.criteria,
        NoHelpDeskRetrieval: String(g.no_helpdesk_retrieval),
        NOOFRESOURCES: String(g.n),
      })),
    );
  }

  /** The group's resources that the caller may see (dynamic groups: matched now). */
  async resources(actor: Actor, groupId: number): Promise<Reply> {
    const group = await this.find(actor, groupId);
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
    const resourceIds = parseIdList(ids);
    const group = await this.find(actor, groupId);
    if (group.kind !== 'static') throw AppError.invalid(`Resource group ${group.name} is dynamic: resources join it by its criteria`);
    this.mayChange(actor, group);
    const added = await this.dataSource.transaction(async (m) => {
      // A share of the group reaches every member, so adding a resource hands out access to
      // it: only those holding full access to the resource may (owner, full share, super admin).
      const visible: { id: number; name: string; full: boolean }[] = await m.query(
        `SELECT r.id, r.name, ${resourceVisibleSql('r', '$1', '$2', '$3', { atLeast: 'fullaccess' })} AS full
         FROM resources r WHERE r.id = ANY($4::int[]) AND ${resourceVisibleSql('r', '$1', '$2', '$3')}`,
        [...visibilityParams(actor), resourceIds],
      );
      const missing = resourceIds.find((id) => !visible.some((r) => r.id === id));
      if (missing !== undefined) throw AppError.notFound(`No such resource found: ${missing}`);
      const lacking = visible.find((r) => !r.full);
      if (lacking) throw AppError.forbidden(`You need full access to resource ${lacking.name} to add it to a resource group`);
      const inserted = await m.query(
        `INSERT INTO resource_group_members (group_id, resource_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING RETURNING resource_id`,
        [group.id, resourceIds],
      );
      await this.audit.record(
        { category: 'Resource', operation: AuditOperation.ResourceGroupModified, actor, target: group.name, description: `added ${visible.map((r) => r.name).join(', ')}`.slice(0, 2000) },
        m,
      );
      return inserted.length as number;
    });
    return reply(`${added} resource(s) added to the resource group ${group.name}`);
  }

  /**
   * Shares reach every member, including resources the sharer could not see; so only a
   * super administrator (who sees every resource of the organisation) may share a group.
   */
  async share(actor: Actor, groupId: number, dto: ShareGroupDto): Promise<Reply> {
    const group = await this.find(actor, groupId);
    if (!actor.isSuperAdmin) throw AppError.forbidden('Only a super administrator can share a resource group');
    const target = await this.shareTarget(actor, dto);
    const access = dto.ACCESSTYPE === 'read' ? 'view' : dto.ACCESSTYPE;
    await this.dataSource.transaction(async (m) => {
      await m.query(`DELETE FROM shares WHERE resource_group_id = $1 AND ${target.column} = $2`, [group.id, target.id]);
      if (access !== 'revoke') {
        await m.query(`INSERT INTO shares (resource_group_id, ${target.column}, access_type) VALUES ($1, $2, $3)`, [group.id, target.id, access]);
      }
      await this.audit.record(
        { category: 'Resource', operation: AuditOperation.ResourceGroupShared, actor, target: group.name, description: `${access} for ${target.label}` },
        m,
      );
    });
    return reply(access === 'revoke' ? `Sharing of resource group ${group.name} revoked` : `Resource group ${group.name} shared successfully`);
  }

  async remove(actor: Actor, groupId: number): Promise<Reply> {
    const group = await this.find(actor, groupId);
    this.mayChange(actor, group);
    await this.dataSource.transaction(async (m) => {
      await m.query('DELETE FROM resource_groups WHERE id = $1', [group.id]);
      await this.audit.record({ category: 'Resource', operation: AuditOperation.ResourceGroupDeleted, actor, target: group.name }, m);
    });
    return reply(`Resource group ${group.name} deleted successfully`);
  }

  /** The group of the caller's organisation; else Failed as not found. */
  findInOrganisation(actor: Actor, groupId: number): Promise<{ id: number; name: string }> {
    return this.find(actor, groupId);
  }

  /** The group, when the caller may change it (its creator or a super administrator); else Failed naming why. */
  async findChangeable(actor: Actor, groupId: number): Promise<{ id: number; name: string }> {
    const group = await this.find(actor, groupId);
    this.mayChange(actor, group);
    return group;
  }

  private async find(actor: Actor, groupId: number): Promise<GroupRow> {
    const [group] = await this.dataSource.query('SELECT id, name, kind, created_by FROM resource_groups WHERE id = $1 AND org_id = $2', [
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

  private async shareTarget(actor: Actor, dto: ShareGroupDto): Promise<{ column: 'user_id' | 'user_group_id'; id: number; label: string }> {
    if (!!dto.USERID === !!dto.USERGROUPID) throw AppError.invalid('Give either USERID or USERGROUPID');
    if (dto.USERID) {
      const id = parseId(dto.USERID, 'USERID');
      const [user] = await this.dataSource.query('SELECT username FROM users WHERE id = $1 AND org_id = $2', [id, actor.orgId]);
      if (!user) throw AppError.notFound('No such user found');
      return { column: 'user_id', id, label: `user ${user.username}` };
    }
    const id = parseId(dto.USERGROUPID, 'USERGROUPID');
    const [group] = await this.dataSource.query('SELECT name FROM user_groups WHERE id = $1 AND org_id = $2', [id, actor.orgId]);
    if (!group) throw AppError.notFound('No such user group found');
    return { column: 'user_group_id', id, label: `user group ${group.name}` };
  }
}

function parseIdList(value: unknown): number[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' || typeof value === 'number' ? String(value).split(',') : [];
  const ids = items.map((v) => String(v).trim()).filter(Boolean);
  if (ids.length === 0) throw AppError.invalid('RESOURCEIDS is required (a list of resource ids)');
  if (ids.length > 1000) throw AppError.invalid('RESOURCEIDS may list at most 1000 resources');
  return [...new Set(ids.map((id) => parseId(id, 'RESOURCEIDS entry')))];
}

function describe(input: GroupInput): string {
  if (input.kind === 'static') return 'static group';
  return input.criteria.map((c) => `${c.field} ${c.operator} "${c.value}"`).join(` ${input.matchMode.toUpperCase()} `).slice(0, 2000);
}
