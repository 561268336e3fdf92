import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { listReply, reply, Reply } from '@app/http';
import { resourceVisibleSql, visibilityParams } from '@app/gate';
import { findResource } from '../common/access';
import { containsPattern, pageOf } from '../common/paging';
import { ResourceGroupListDto } from './resource-group.dto';

/** Reads of resource groups as lists: the groups of the organisation, and the groups of one resource. */
@Injectable()
export class ResourceGroupReader {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Every group of the organisation with the number of its resources the caller may see;
   * PAM360's camelCase keys beside the upper-case ones, its search and paging (ids and
   * types as text, like the rest of the answers).
   */
  async list(actor: Actor, query: ResourceGroupListDto = {}): Promise<Reply> {
    const params: unknown[] = visibilityParams(actor);
    const filters: string[] = [];
    if (query.searchType && query.searchType !== 'all') filters.push(`g.kind = $${params.push(query.searchType)}`);
    if (query.searchValue) filters.push(groupSearchSql(query.searchColumn ?? 'all', params, query.searchValue));
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT g.id, g.name, g.description, g.kind, g.match_mode, g.criteria, g.no_helpdesk_retrieval, g.created_by,
         (SELECT count(*) FROM resource_group_membership m JOIN resources r ON r.id = m.resource_id
          WHERE m.group_id = g.id AND ${resourceVisibleSql('r', '$1', '$2', '$3')}) AS n
       FROM resource_groups g WHERE g.org_id = $1 ${filters.map((f) => `AND ${f}`).join(' ')} ORDER BY g.name_key`,
      params,
    );
    return listReply(
      'Resource groups fetched successfully',
      pageOf(rows, query.startIndex, query.limit).map((g) => ({
        RESOURCEGROUPID: String(g.id),
        RESOURCEGROUPNAME: g.name,
        DESCRIPTION: g.description,
        GROUPTYPE: g.kind === 'static' ? 'Static' : 'Dynamic',
        andor: g.match_mode,
        CRITERIA: g.criteria,
        NoHelpDeskRetrieval: String(g.no_helpdesk_retrieval),
        NOOFRESOURCES: String(g.n),
        resourceGroupId: String(g.id),
        resourceGroupName: g.name,
        resourceGroupDescription: g.description,
        resourceGroupType: g.kind,
        ownerId: g.created_by === null ? '' : String(g.created_by),
        resourceCount: String(g.n),
      })),
      rows.length,
    );
  }

  /** The groups resource `resourceId` belongs to (static lists and rule matches), if the caller may see it. */
  async associatedGroups(actor: Actor, resourceId: number): Promise<Reply> {
    const resource = await findResource(this.dataSource.manager, actor, resourceId);
    const groups: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT g.id, g.name, g.description, g.kind FROM resource_group_membership m JOIN resource_groups g ON g.id = m.group_id
       WHERE m.resource_id = $1 AND g.org_id = $2 ORDER BY g.name_key`,
      [resource.id, actor.orgId],
    );
    return reply('Associated resource groups fetched successfully', {
      'RESOURCE ID': String(resource.id),
      'RESOURCE NAME': resource.name,
      'ASSOCIATED GROUPS': groups.map((g) => ({
        'GROUP ID': String(g.id),
        'GROUP NAME': g.name,
        'GROUP DESCRIPTION': g.description,
        'GROUP TYPE': g.kind === 'static' ? 'Static' : 'Dynamic',
      })),
    });
  }
}

/** searchColumn over group `g`, its value added to `params`. */
function groupSearchSql(column: string, params: unknown[], value: string): string {
  if (column === 'ownerId') return `g.created_by::text = $${params.push(value.trim())}`;
  const slot = `$${params.push(containsPattern(value))}`;
  if (column === 'resourceGroupName') return `g.name ILIKE ${slot}`;
  if (column === 'resourceGroupDescription') return `g.description ILIKE ${slot}`;
  return `(g.name ILIKE ${slot} OR g.description ILIKE ${slot})`;
}
