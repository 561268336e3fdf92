import { X509Certificate } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Connector, ConnectorTarget, TlsMode, validUserDnTemplate } from '@app/connectors';
import { AccountSecretGate, AccountUse, bindDestinations, guardMembershipMoves, resourceVisibleSql, visibilityParams, withMoves } from '@app/gate';
import { AppError, reply, Reply } from '@app/http';
import { parseHost } from '@app/net';
import { hostKeyHost } from '@app/ssh';
import { expectedHostKey, toAppError } from '@app/ssh/service';
import type { ConfigureRemoteResetDto } from './remote-reset.dto';
import { connectorAppError, connectorOf, defaultPort, RemoteSettings, SETTINGS_SQL } from './remote-target';

/**
 * PUT/GET .../remotepasswordreset: which account of a resource logs in to its target to
 * change passwords, and how to reach it. Saving logs in with that account and proves its
 * right to change passwords; a failure saves nothing and says why. Logging in sends the
 * stored password, so the gate decides first (a use of it; pointing it at another host,
 * port, TLS setting, CA, DN template or database needs full access to the resource), audited
 * before connecting.
 */
@Injectable()
export class RemoteConfiguration {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly gate: AccountSecretGate,
  ) {}

  async configure(actor: Actor, resourceId: number, dto: ConfigureRemoteResetDto): Promise<Reply> {
    const host = dto.DNSNAME ? hostOf(dto.DNSNAME) : undefined;
    // Scoped to the organisation only: whether the caller may see it is the gate's decision,
    // so that a refusal of any kind is audited like every other secret path's.
    const [found] = await this.dataSource.query(
      `SELECT a.id, a.name FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE r.id = $1 AND r.org_id = $2 AND a.name_key = lower($3)`,
      [resourceId, actor.orgId, dto.ACCOUNTNAME],
    );
    const [current]: RemoteSettings[] = await this.dataSource.query(`${SETTINGS_SQL} WHERE r.id = $1 AND r.org_id = $2`, [resourceId, actor.orgId]);
    const next = current ? proposed(current, dto, host) : undefined;
    // Where the credentials go: the host, port, TLS and CA, and the LDAP DN template (the DN the
    // administrator binds as, and the entry each account's new password is written to) and the
    // PostgreSQL database (whose authentication rule receives the password).
    const moved =
      !!next &&
      (next.host !== current.host ||
        next.port !== current.port ||
        next.tls !== current.tls ||
        (next.caCert ?? null) !== current.ca_cert ||
        (next.userDn ?? null) !== current.user_dn ||
        (next.database ?? null) !== current.database);
    const use: AccountUse = moved ? 'configure' : 'use';
    const access = { reason: dto.REASON, ticketId: dto.TICKETID };
    const { password } = await this.gate.openPassword(
      actor,
      { use, resourceId, accountId: found?.id ?? 0, ...access },
      `Remote password reset configuration: login to ${next?.host}:${next?.port}`,
    );
    // From now on the server sends every account's password to this destination, acting
    // through this administrator: a new destination or administrator is a use of each of them.
    // A super administrator passes (the bindings that move are audited in their name).
    const rebinding = (moved || current.admin_id !== found.id) && !actor.isSuperAdmin;
    const decided = new Set<number>([found.id]);
    if (rebinding) {
      const others: { id: number }[] = await this.dataSource.query('SELECT id FROM accounts WHERE resource_id = $1 AND id <> $2 ORDER BY id', [resourceId, found.id]);
      for (const other of others) {
        decided.add(other.id);
        await this.gate.approveUse(actor, { use: 'use', resourceId, accountId: other.id, ...access }, `Remote password reset configuration: its password will be sent to ${next?.host}:${next?.port} through ${found.name}`);
      }
    }
    const connector = connectorOf(current.type, current.resource_name);
    const target = checked(connector, next!, current.org_id);
    // Without TLS a database peer may ask for the password in a form it can replay: a super administrator's choice.
    if (target.tls === 'off' && connector.tlsModes.includes('verify') && current.tls !== 'off' && !actor.isSuperAdmin) {
      throw AppError.forbidden(`TLS off for ${current.resource_name} needs a super administrator; use TLS verify (or require)`);
    }
    const resource = { id: resourceId, name: current.resource_name };
    const admin = { id: found.id as number, name: found.name as string };
    await this.loginAudited(actor, resource, admin, connector, { ...target, expectedHostKey: expectedHostKey(dto.HOSTKEYFINGERPRINT) }, password);
    return this.gate.transaction(actor, async (m) => {
      // Decided on the settings read before the login: a change made meanwhile is not overwritten.
      const [now]: RemoteSettings[] = await m.query(`${SETTINGS_SQL} WHERE r.id = $1 FOR UPDATE OF r`, [resourceId]);
      if (!sameSettings(now, current)) throw AppError.conflict(`The remote password reset settings of ${resource.name} changed meanwhile; nothing was saved, try again`);
      if (rebinding) {
        // An account added since the decisions above is decided here, inside the write.
        const added: { id: number }[] = await m.query('SELECT id FROM accounts WHERE resource_id = $1 AND NOT (id = ANY($2::int[]))', [resourceId, [...decided]]);
        for (const a of added) await this.gate.authorizeChange(m, actor, { use: 'use', resourceId, accountId: a.id, ...access });
      }
      // A new DNS name can move the resource into or out of groups whose rules read it.
      const { moves } = await guardMembershipMoves(m, actor, [resourceId], () =>
        m.query(
          `UPDATE resources SET remote_account_id = $2, remote_port = $3, dns_name = coalesce($4, dns_name), remote_database = $5, remote_tls = $6,
             remote_ca_cert = $7, remote_user_dn = $8, updated_at = now() WHERE id = $1`,
          [resourceId, admin.id, target.port, host ?? null, target.database ?? null, target.tls, target.caCert ?? null, target.userDn ?? null],
        ),
      );
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.RemoteResetConfigured,
          actor,
          resourceId,
          resourceName: resource.name,
          accountId: admin.id,
          accountName: admin.name,
          description: withMoves(`Remote password reset (${connector.kind}) through ${target.host}:${target.port}, TLS ${target.tls}, as ${admin.name}`, moves),
        },
        m,
      );
      await bindDestinations(m, this.audit, actor, resourceId, `remote password reset configured by ${actor.username}`);
      return reply(`Remote password reset configured for resource ${resource.name}`, details(resourceId, resource.name, current.type, connector.kind, target, admin));
    });
  }

  async describe(actor: Actor, resourceId: number): Promise<Reply> {
    const [row] = await this.dataSource.query(
      `SELECT s.*, a.name AS admin_name FROM (${SETTINGS_SQL} WHERE r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3')}) s
       LEFT JOIN accounts a ON a.id = s.admin_id AND a.resource_id = s.resource_id`,
      [...visibilityParams(actor), resourceId],
    );
    if (!row) throw AppError.notFound('No such resource found');
    const settings = row as RemoteSettings & { admin_name: string | null };
    const admin = settings.admin_id && settings.admin_name ? { id: settings.admin_id, name: settings.admin_name } : null;
    let kind = '';
    let target: Pick<ConnectorTarget, 'host' | 'port' | 'tls' | 'database' | 'caCert' | 'userDn'> = { host: settings.host, port: settings.port ?? 0, tls: 'off' };
    try {
      const connector = connectorOf(settings.type, settings.resource_name);
      kind = connector.kind;
      const tls = (settings.tls ?? connector.tlsModes[0]) as TlsMode;
      target = { host: settings.host, port: settings.port ?? defaultPort(connector, tls), tls, database: settings.database ?? undefined, caCert: settings.ca_cert ?? undefined, userDn: settings.user_dn ?? undefined };
    } catch {
      // A type no connector serves: shown as it is, not configurable.
    }
    const [pin] = kind === 'ssh'
      ? await this.dataSource.query('SELECT fingerprint FROM ssh_host_keys WHERE org_id = $1 AND host = $2 AND port = $3', [actor.orgId, hostKeyHost(target.host), target.port])
      : [];
    return reply('Remote password reset settings fetched successfully', {
      ...details(row.resource_id, settings.resource_name, settings.type, kind, target, admin),
      HOSTKEYFINGERPRINT: pin?.fingerprint ?? '',
    });
  }

  /** The login that proves the admin account and its right; a refusal by the target is in the audit trail. */
  private async loginAudited(
    actor: Actor,
    resource: { id: number; name: string },
    admin: { id: number; name: string },
    connector: Connector,
    target: ConnectorTarget,
    password: string,
  ): Promise<void> {
    try {
      const session = await connector.connect(target, { username: admin.name, password });
      try {
        await session.checkPrivilege();
      } finally {
        await session.close();
      }
    } catch (error) {
      const mapped = connectorAppError(error, `Remote password reset was not configured for ${resource.name}`);
      await this.audit.record({
        category: 'Resource',
        operation: AuditOperation.RemoteResetConfigured,
        outcome: 'Failed',
        actor,
        resourceId: resource.id,
        resourceName: resource.name,
        accountId: admin.id,
        accountName: admin.name,
        description: `Login to ${target.host}:${target.port} as ${admin.name} failed: ${error instanceof Error ? error.message : 'error'}`.slice(0, 2000),
      });
      throw mapped;
    }
  }
}

interface Proposed {
  host: string;
  port: number | null;
  tls: string | null;
  database?: string;
  caCert?: string;
  userDn?: string;
}

/** The settings after this request: each field as given, else as stored. */
function proposed(current: RemoteSettings, dto: ConfigureRemoteResetDto, host: string | undefined): Proposed {
  return {
    host: host ?? current.host,
    port: dto.PORT ?? current.port,
    tls: dto.TLS ?? current.tls,
    database: dto.DATABASE ?? current.database ?? undefined,
    caCert: dto.CACERT === undefined ? (current.ca_cert ?? undefined) : dto.CACERT.trim() || undefined,
    userDn: dto.USERDN ?? dto.BASEDN ?? current.user_dn ?? undefined,
  };
}

/** The proposed settings completed with the kind's defaults and checked; a bad field is a Failed naming it. */
function checked(connector: Connector, next: Proposed, orgId: number): ConnectorTarget {
  const tls = (next.tls ?? connector.tlsModes[0]) as TlsMode;
  if (!connector.tlsModes.includes(tls)) throw AppError.invalid(`TLS must be one of ${connector.tlsModes.join(', ')} for this resource type`);
  if (next.caCert) {
    try {
      new X509Certificate(next.caCert);
    } catch {
      throw AppError.invalid('CACERT must hold PEM certificates');
    }
  }
  if (connector.kind === 'ldap' && !(next.userDn && validUserDnTemplate(next.userDn))) {
    throw AppError.invalid('USERDN must be a DN template whose first value is {account}, such as uid={account},ou=people,dc=example,dc=org');
  }
  if (connector.kind === 'ad' && !(next.userDn && /(^|,)\s*dc\s*=/i.test(next.userDn) && !next.userDn.includes('{account}'))) {
    throw AppError.invalid('USERDN (or BASEDN) must be the base DN the accounts are found under, such as CN=Users,DC=example,DC=org');
  }
  return {
    host: next.host,
    port: next.port ?? defaultPort(connector, tls),
    orgId,
    tls,
    database: connector.kind === 'postgresql' ? (next.database ?? 'postgres') : undefined,
    caCert: next.caCert,
    userDn: connector.kind === 'ldap' || connector.kind === 'ad' ? next.userDn : undefined,
  };
}

function details(
  resourceId: number,
  resourceName: string,
  type: string,
  kind: string,
  target: Pick<ConnectorTarget, 'host' | 'port' | 'tls' | 'database' | 'caCert' | 'userDn'>,
  admin: { id: number; name: string } | null,
) {
  return {
    RESOURCEID: String(resourceId),
    RESOURCENAME: resourceName,
    RESOURCETYPE: type,
    CONNECTOR: kind,
    HOST: target.host,
    PORT: String(target.port),
    TLS: target.tls,
    DATABASE: target.database ?? '',
    CACERT: target.caCert ?? '',
    USERDN: target.userDn ?? '',
    ACCOUNTID: admin ? String(admin.id) : '',
    ACCOUNTNAME: admin?.name ?? '',
    CONFIGURED: admin ? 'true' : 'false',
  };
}

/** The stored settings that decide a destination, unchanged since `before` was read. */
function sameSettings(now: RemoteSettings | undefined, before: RemoteSettings): boolean {
  if (!now) return false;
  const keys: (keyof RemoteSettings)[] = ['type', 'host', 'port', 'database', 'tls', 'ca_cert', 'user_dn', 'admin_id'];
  return keys.every((key) => now[key] === before[key]);
}

function hostOf(input: string): string {
  try {
    return parseHost(input);
  } catch (error) {
    throw toAppError(error);
  }
}
