import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { listReply, RenderedList, reply, Reply } from '@app/http';
import { copyJsonObjects, JsonRows, pgPool } from '@app/persistence';
import { findResource, ResourceRow } from '../common/access';
import { bool } from '../common/format';
import { accountSharedSql, resourceVisibleSql, visibilityParams } from '@app/gate';
import { inUseSql } from '@app/gate';
import { effectiveAccessControl } from '../password-requests/access-sql';
import { SettingsService } from '../settings/settings.service';
import { customFieldsOf } from './custom-fields';
import { ResourceSearchDto } from './resource.dto';
import { searchFilters } from './resource-search';
import { pageOf } from '../common/paging';

export { customFieldsOf } from './custom-fields';

/** Reads of resources and their account lists, scoped by "owned by or shared to". */
@Injectable()
export class ResourcesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly settings: SettingsService,
  ) {}

  /**
   * GET RESOURCES. `rendered`: the API's answer, where a whole list (no LIMIT, no search) is
   * rendered to JSON from the database's bytes (RenderedList); the console gets entries.
   */
  async list(actor: Actor, search: ResourceSearchDto, options: { rendered?: boolean } = {}): Promise<Reply> {
    const params: unknown[] = visibilityParams(actor);
    const filters = searchFilters(search, params);
    const filter = filters.map((f) => `AND ${f}`).join(' ');
    const where = `FROM resources r WHERE ${resourceVisibleSql('r', '$1', '$2', '$3')} ${filter}`;
    const start = search.STARTINDEX ?? 0;
    if (options.rendered && search.LIMIT === undefined && filters.length === 0) {
      const whole = await this.renderedList(actor, start);
      if (whole) return whole;
    }
    const offset = `$${params.push(start)}`;
    const limit = search.LIMIT === undefined ? 'ALL' : `$${params.push(search.LIMIT)}`;
    // The page is chosen in SQL. Only a LIMIT needs the count of all matches beside the page
    // (count(*) OVER ()); the window then keeps the id and the name of each match, not every
    // column, and the page's rows are read afterwards. Without a LIMIT the rows themselves are
    // the rest of the matches, and without the window PostgreSQL sends rows while it still
    // walks the index.
    const counted = limit !== 'ALL';
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      counted
        ? `WITH page AS (SELECT r.id, r.name, count(*) OVER () AS total ${where} ORDER BY r.name, r.id OFFSET ${offset} LIMIT ${limit})
           SELECT r.id, r.name, r.type, r.description, p.total, ${accountCountSql('$1', '$2', '$3')} AS n FROM page p JOIN resources r ON r.id = p.id ORDER BY p.name, p.id`
        : `SELECT r.id, r.name, r.type, r.description, ${accountCountSql('$1', '$2', '$3')} AS n ${where} ORDER BY r.name, r.id OFFSET ${offset}`,
      params,
    );
    // A page past the end has no row to carry the count: it is counted on its own.
    const total = rows.length
      ? counted ? Number(rows[0].total) : start + rows.length
      : Number((await this.dataSource.query(`SELECT count(*) AS n ${where}`, params.slice(0, params.length - (counted ? 2 : 1))))[0].n);
    return listReply('Resources fetched successfully', rows.map(resourceListEntry), total);
  }

  /**
   * The whole list from STARTINDEX on as JSON written from a binary COPY: no string per field,
   * object per row or JSON.stringify (half of node's time on a list of 20,000). The same
   * visibility and count as the statement above; COPY takes no parameters, so the statement
   * holds the caller's ids and the start, integers the server itself has. Nothing to list:
   * undefined, and the statement above answers (with the total it counts).
   */
  private async renderedList(actor: Actor, start: number): Promise<Reply | undefined> {
    const [org, uid, superAdmin] = visibilityParams(actor).map(sqlLiteral);
    const client = await pgPool(this.dataSource).connect();
    let rows: JsonRows;
    try {
      rows = await copyJsonObjects(
        client,
        `SELECT r.id::text, r.name, r.type, r.description, (${accountCountSql(org, uid, superAdmin)})::text
         FROM resources r WHERE ${resourceVisibleSql('r', org, uid, superAdmin)} ORDER BY r.name, r.id OFFSET ${sqlLiteral(start)}`,
        LIST_KEYS,
      );
    } catch (error) {
      client.release(error as Error); // a connection a COPY failed on is not handed out again
      throw error;
    }
    client.release();
    if (rows.count === 0) return undefined;
    return { message: 'Resources fetched successfully', details: new RenderedList(rows.json, rows.count), totalRows: start + rows.count };
  }

  /** The resource and the accounts of it the caller sees; totalRows counts those matching the search, before paging. */
  async accountList(actor: Actor, resourceId: number, search: ResourceSearchDto = {}): Promise<Reply> {
    const resource = await this.findVisible(actor, resourceId);
    const params: unknown[] = [...visibilityParams(actor), resourceId];
    const filter = searchFilters(search, params, 'a').map((f) => `AND ${f}`).join(' ');
    const matching: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT a.id, a.name, a.notes, a.password_policy, a.is_favourite, ${inUseSql('a', '$2')} AS in_use,
         coalesce(ac.reason_required, false) AS request_reason
       FROM accounts a JOIN resources r ON r.id = a.resource_id LEFT JOIN ${effectiveAccessControl('a')} ON true
       WHERE r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })} ${filter} ORDER BY a.name, a.id`,
      params,
    );
    const accounts = pageOf(matching, search.STARTINDEX, search.LIMIT);
    const settings = await this.settings.get(actor.orgId);
    const answer = reply('Resource details with account list fetched successfully', {
      ...resourceDetails(resource),
      'RESOURCE OWNER': resource.owner_name,
      'RESOURCE PASSWORD POLICY': resource.password_policy,
      // A reason is needed when the organisation says so, or an account's access control does.
      PASSWORDREQUEST_REASON_MANDATORY: bool(settings.reasonRequired || accounts.some((a) => a.request_reason)),
      'CUSTOM FIELD': await customFieldsOf(this.dataSource.manager, resourceId, null),
      'ACCOUNT LIST': accounts.map((a) => ({
        'ACCOUNT ID': String(a.id),
        'ACCOUNT NAME': a.name,
        PASSWDID: String(a.id),
        'PASSWORD STATUS': a.in_use ? '[ In use ]' : '****',
        'ACCOUNT PASSWORD POLICY': a.password_policy,
        ACCOUNT_DESCRIPTION: a.notes,
        ISFAVPASS: bool(a.is_favourite as boolean),
        ISREASONREQUIRED: bool(settings.reasonRequired || (a.request_reason as boolean)),
        IS_TICKETID_REQD: bool(settings.ticketingEnabled),
        IS_TICKETID_REQD_MANDATORY: bool(settings.ticketingEnabled),
        IS_TICKETID_REQD_ACW: bool(settings.ticketingEnabled),
      })),
    });
    return { ...answer, totalRows: matching.length };
  }

  /** The resource if the caller may see it; otherwise the same answer as a missing one. */
  findVisible(actor: Actor, resourceId: number): Promise<ResourceRow> {
    return findResource(this.dataSource.manager, actor, resourceId);
  }
}

/** The resource fields shared by the account list and the A2A look-up. */
export function resourceDetails(resource: ResourceRow): Record<string, string> {
  return {
    'RESOURCE ID': String(resource.id),
    'RESOURCE NAME': resource.name,
    'RESOURCE DESCRIPTION': resource.description,
    'RESOURCE TYPE': resource.type,
    'DNS NAME': resource.dns_name,
    'RESOURCE URL': resource.url,
    DEPARTMENT: resource.department,
    LOCATION: resource.location,
  };
}

/**
 * NOOFACCOUNTS of resource `r`, a resource the caller sees (the statement's WHERE). Where the
 * whole resource is visible every account counts (kept on the resource, migration
 * ResourceListing); the per-account test runs only for resources seen through account-level
 * shares. A resource no such share of reaches the caller is seen whole (owner, super
 * administrator, resource or resource-group share): one hashed probe decides most rows
 * before the whole-resource test (a third of a 20,000-row list's time in PostgreSQL when
 * it ran for every row). That test then runs for those few rows only, as index probes: hashed,
 * it cost another third (every resource of the caller's resource groups hashed for a handful
 * of rows).
 */
function accountCountSql(org: string, uid: string, superAdmin: string): string {
  return `CASE WHEN NOT ${accountSharedSql('r', uid)} OR ${resourceVisibleSql('r', org, uid, superAdmin, { wholeResource: true, probe: true })} THEN r.account_count
    ELSE (SELECT count(*) FROM accounts a WHERE a.resource_id = r.id AND ${resourceVisibleSql('r', org, uid, superAdmin, { account: 'a' })}) END`;
}

/** The keys of a `GET RESOURCES` entry, in resourceListEntry's order. */
const LIST_KEYS = ['RESOURCE ID', 'RESOURCE NAME', 'RESOURCE TYPE', 'RESOURCE DESCRIPTION', 'NOOFACCOUNTS'];

/** An integer or a boolean as SQL; anything else is refused (it would not be the server's own value). */
function sqlLiteral(value: unknown): string {
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isSafeInteger(value))) return String(value);
  throw new Error(`Not an integer or a boolean: ${typeof value}`);
}

/** A `GET RESOURCES` entry (docs/api/vault.md), from a row with id, name, type, description and n (accounts). */
export function resourceListEntry(r: Record<string, unknown>): Record<string, unknown> {
  return {
    'RESOURCE ID': String(r.id),
    'RESOURCE NAME': r.name,
    'RESOURCE TYPE': r.type,
    'RESOURCE DESCRIPTION': r.description,
    NOOFACCOUNTS: String(r.n),
  };
}
