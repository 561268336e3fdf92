import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { ROLE_PERMISSIONS } from '@app/auth';
import { ConnectorError, ConnectorTarget } from '@app/connectors';
import { AccountSecretGate } from '@app/gate';
import { AppError, reply, Reply } from '@app/http';
import { connectorAppError, connectorOf, RemoteSettings, SETTINGS_SQL, targetOf } from '../remote-reset/remote-target';
import { ConfigureDirectoryDto } from './directory.dto';
import { DirectoryReader, DirectorySearch, parseFilter } from './directory-reader';

export const DEFAULT_USER_FILTER = '(&(objectCategory=person)(objectClass=user))';
export const DEFAULT_GROUP_FILTER = '(objectClass=group)';
const ROLES = Object.keys(ROLE_PERMISSIONS);

/** An organisation's directory, as stored. */
export interface DirectoryRow {
  org_id: number;
  resource_id: number;
  resource_name: string;
  user_base: string;
  user_filter: string;
  group_base: string;
  group_filter: string;
  default_role: string;
  role_map: Record<string, string>;
  sync_interval_seconds: number;
  last_sync_at: Date | null;
  last_sync_result: Record<string, unknown> | null;
  /** Where the directory was reached when a super administrator configured it (destinationKey). */
  destination: string;
}

const DIRECTORY_SQL = `SELECT d.*, r.name AS resource_name FROM directories d JOIN resources r ON r.id = d.resource_id`;

/**
 * Sign-in with the directory (issue 37): an organisation's Active Directory is reached through
 * one of its Windows Domain resources, with that resource's remote-reset settings and
 * administrator account. The bind password therefore goes only where that resource's
 * destination was decided, and every bind is a use of it through the gate (audited as
 * `Password Used`): by the super administrator who configures it, by the server for a
 * synchronisation or a sign-in.
 */
@Injectable()
export class DirectoryConfig {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly gate: AccountSecretGate,
  ) {}

  async find(orgId: number): Promise<DirectoryRow | undefined> {
    const [row] = await this.dataSource.query(`${DIRECTORY_SQL} WHERE d.org_id = $1`, [orgId]);
    return row;
  }

  /** The organisations that have a directory (sign-in without an organisation tries each). */
  async all(organisation = ''): Promise<DirectoryRow[]> {
    return this.dataSource.query(`${DIRECTORY_SQL} JOIN organizations o ON o.id = d.org_id WHERE $1 = '' OR lower(o.name) = lower($1) ORDER BY d.org_id`, [organisation.trim()]);
  }

  /** `actor` null: the operators' command line (npm run admin -- directory), named by `via`. */
  async configure(actor: Actor | null, orgId: number, dto: ConfigureDirectoryDto, via = ''): Promise<Reply> {
    // The directory decides who signs in and which groups people are in: a super administrator's choice.
    if (actor && !actor.isSuperAdmin) throw AppError.forbidden('Only a super administrator may configure the directory');
    const [resource] = await this.dataSource.query(
      `SELECT r.id, r.name, r.type, r.remote_user_dn AS user_dn FROM resources r
       WHERE r.org_id = $1 AND (r.id = $2 OR ($2 = 0 AND lower(r.name) = lower($3)))`,
      [orgId, Number(dto.RESOURCEID) || 0, dto.RESOURCENAME ?? ''],
    );
    if (!resource) throw AppError.notFound('RESOURCENAME (or RESOURCEID) must name a Windows Domain resource of this organisation');
    if (connectorOf(resource.type, resource.name).kind !== 'ad') throw AppError.invalid(`${resource.name} is a ${resource.type} resource: the directory must be a Windows Domain resource`);
    const current = await this.find(orgId);
    const base = dto.USERBASE ?? current?.user_base ?? resource.user_dn;
    if (!base) throw AppError.invalid(`USERBASE is required (${resource.name} has no base DN configured)`);
    const search: DirectorySearch = {
      userBase: base,
      userFilter: dto.USERFILTER ?? current?.user_filter ?? DEFAULT_USER_FILTER,
      groupBase: dto.GROUPBASE ?? current?.group_base ?? base,
      groupFilter: dto.GROUPFILTER ?? current?.group_filter ?? DEFAULT_GROUP_FILTER,
    };
    try {
      parseFilter(search.userFilter, 'USERFILTER');
      parseFilter(search.groupFilter, 'GROUPFILTER');
    } catch (error) {
      throw AppError.invalid((error as Error).message);
    }
    const defaultRole = canonicalRole(dto.DEFAULTROLE ?? current?.default_role ?? 'Password User', 'DEFAULTROLE');
    const roleMap = dto.ROLEMAP === undefined ? (current?.role_map ?? {}) : parseRoleMap(dto.ROLEMAP);
    const interval = dto.SYNCINTERVAL ?? current?.sync_interval_seconds ?? 3600;
    // A test bind and both searches, as this super administrator: the configuration is proven before it is saved.
    const { reader, destination } = await this.connect(actor, resource.id, search, 'Directory configuration: a test bind and search', actor ? undefined : via);
    let found: { users: number; groups: number };
    try {
      found = { users: (await reader.users()).length, groups: (await reader.groups()).length };
    } catch (error) {
      throw connectorAppError(error instanceof ConnectorError ? error : new ConnectorError('invalid', (error as Error).message), 'The directory was not configured');
    } finally {
      await reader.close();
    }
    await this.dataSource.transaction(async (m) => {
      await m.query(
        `INSERT INTO directories (org_id, resource_id, user_base, user_filter, group_base, group_filter, default_role, role_map, sync_interval_seconds, destination)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (org_id) DO UPDATE SET resource_id = $2, user_base = $3, user_filter = $4, group_base = $5, group_filter = $6, default_role = $7,
           role_map = $8, sync_interval_seconds = $9, destination = $10, updated_at = now()`,
        [orgId, resource.id, search.userBase, search.userFilter, search.groupBase, search.groupFilter, defaultRole, JSON.stringify(roleMap), interval, destination],
      );
      await this.audit.record(
        {
          category: 'User',
          operation: AuditOperation.DirectoryConfigured,
          actor,
          orgId,
          resourceId: resource.id,
          resourceName: resource.name,
          description: `Users under ${search.userBase}, groups under ${search.groupBase}; default role ${defaultRole}; ${Object.keys(roleMap).length} group role(s); sync every ${interval} s${actor ? '' : ` (${via})`}`,
        },
        m,
      );
    });
    return reply('Directory configured successfully', { ...describe((await this.find(orgId))!), USERSFOUND: String(found.users), GROUPSFOUND: String(found.groups) });
  }

  async describe(actor: Actor): Promise<Reply> {
    const row = await this.find(actor.orgId);
    if (!row) throw AppError.notFound('No directory is configured for this organisation');
    return reply('Directory fetched successfully', describe(row));
  }

  /**
   * The server's own reader of a configured directory (a synchronisation, a sign-in, named by
   * `startedBy` in the audit row), bound as the resource's administrator, and only where the
   * super administrator who configured it decided: a resource moved since is refused before a
   * packet is sent, so that nobody with mere full access to the resource can point the
   * sign-in at a directory of their own.
   */
  async open(row: DirectoryRow, description: string, startedBy: string): Promise<DirectoryReader> {
    const { reader } = await this.connect(null, row.resource_id, searchOf(row), description, startedBy, row.destination);
    return reader;
  }

  private async connect(actor: Actor | null, resourceId: number, search: DirectorySearch, description: string, startedBy?: string, decided?: string) {
    const admin = await this.gate.openAdministrator(actor, { resourceId, description, startedBy });
    const [settings]: RemoteSettings[] = await this.dataSource.query(`${SETTINGS_SQL} WHERE r.id = $1`, [resourceId]);
    const target = targetOf(settings, connectorOf(settings.type, settings.resource_name), admin.destination);
    const destination = destinationKey(target);
    if (decided !== undefined && decided !== destination) {
      throw AppError.forbidden(`The directory's resource ${settings.resource_name} now connects to ${target.host}:${target.port}, not where the directory was configured: a super administrator must configure the directory again`);
    }
    try {
      return { reader: await DirectoryReader.open(target, { username: admin.account.name, password: admin.password }, search), destination };
    } catch (error) {
      throw connectorAppError(error, 'The directory could not be read');
    }
  }
}

/** What decides where a directory is reached: host, port, TLS mode and the CA trusted. */
export function destinationKey(target: ConnectorTarget): string {
  const ca = target.caCert ? createHash('sha256').update(target.caCert).digest('hex') : 'system';
  return `${target.host}|${target.port}|${target.tls}|${ca}`;
}

export function searchOf(row: DirectoryRow): DirectorySearch {
  return { userBase: row.user_base, userFilter: row.user_filter, groupBase: row.group_base, groupFilter: row.group_filter };
}

function describe(row: DirectoryRow) {
  return {
    RESOURCEID: String(row.resource_id),
    RESOURCENAME: row.resource_name,
    USERBASE: row.user_base,
    USERFILTER: row.user_filter,
    GROUPBASE: row.group_base,
    GROUPFILTER: row.group_filter,
    DEFAULTROLE: row.default_role,
    ROLEMAP: row.role_map,
    SYNCINTERVAL: String(row.sync_interval_seconds),
    LASTSYNC: row.last_sync_at ? row.last_sync_at.toISOString() : '',
    LASTSYNCRESULT: row.last_sync_result ?? {},
  };
}

function canonicalRole(role: string, field: string): string {
  const found = ROLES.find((r) => r.toLowerCase() === role.trim().toLowerCase());
  if (!found) throw AppError.invalid(`${field}: ${role} is not a role; use one of ${ROLES.join(', ')}`);
  return found;
}

/** ROLEMAP: directory group names (case-insensitive) to roles; never a super administrator. */
export function parseRoleMap(value: Record<string, string> | string): Record<string, string> {
  let map: unknown = value;
  if (typeof value === 'string') {
    try {
      map = value.trim() ? JSON.parse(value) : {};
    } catch {
      throw AppError.invalid('ROLEMAP must be a JSON object of directory group name to role');
    }
  }
  if (!map || typeof map !== 'object' || Array.isArray(map)) throw AppError.invalid('ROLEMAP must be a JSON object of directory group name to role');
  return Object.fromEntries(Object.entries(map as Record<string, unknown>).map(([group, role]) => [group.trim().toLowerCase(), canonicalRole(String(role), `ROLEMAP ${group}`)]));
}
