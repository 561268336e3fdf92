import { Connector, ConnectorError, ConnectorTarget, connectorForType, SUPPORTED_TYPES, TlsMode } from '@app/connectors';
import { AdministratorDestination, hostSql } from '@app/gate';
import { AppError, ErrorCode } from '@app/http';

/** A resource's connector settings, as stored (resources.remote_*). */
export interface RemoteSettings {
  resource_id: number;
  resource_name: string;
  org_id: number;
  type: string;
  host: string;
  port: number | null;
  database: string | null;
  tls: string | null;
  ca_cert: string | null;
  user_dn: string | null;
  admin_id: number | null;
}

export const SETTINGS_SQL = `SELECT r.id AS resource_id, r.name AS resource_name, r.org_id, r.type,
    ${hostSql('r')} AS host, r.remote_port AS port, r.remote_database AS database,
    r.remote_tls AS tls, r.remote_ca_cert AS ca_cert, r.remote_user_dn AS user_dn, r.remote_account_id AS admin_id
  FROM resources r`;

/** The connector serving a resource type, or a Failed answer naming the types that have one. */
export function connectorOf(type: string, resourceName: string): Connector {
  const connector = connectorForType(type);
  if (!connector) {
    throw AppError.invalid(`Remote password reset is not available for ${resourceName} (type ${type}); it is for ${SUPPORTED_TYPES.join(', ')}`);
  }
  return connector;
}

/**
 * Where a connector connects for this resource. With `destination` (what the gate decided
 * on for the administrator credential), host, port and type are that destination's.
 */
export function targetOf(settings: RemoteSettings, connector: Connector, destination?: AdministratorDestination): ConnectorTarget {
  const tls = (settings.tls ?? connector.tlsModes[0]) as TlsMode;
  return {
    host: destination?.host ?? settings.host,
    port: (destination ? destination.port : settings.port) ?? defaultPort(connector, tls),
    orgId: settings.org_id,
    database: settings.database ?? undefined,
    tls,
    caCert: settings.ca_cert ?? undefined,
    userDn: settings.user_dn ?? undefined,
  };
}

/** The kind's port; for directories LDAPS (TLS from the first byte) listens on 636, StartTLS on 389. */
export function defaultPort(connector: Connector, tls: TlsMode): number {
  if (connector.kind === 'ldap' || connector.kind === 'ad') return tls === 'starttls' ? 389 : 636;
  return connector.defaultPort;
}

/** A connector's failure as the envelope's: bad settings are INVALID_INPUT, anything the target said is REMOTE_FAILURE. */
export function connectorAppError(error: unknown, context: string): unknown {
  if (!(error instanceof ConnectorError)) return error;
  return new AppError(error.reason === 'invalid' ? ErrorCode.InvalidInput : ErrorCode.RemoteFailure, `${context}: ${error.message}`);
}

/** Failures after which the target certainly did not change the password (refused before or instead of the change). */
export function certainlyUnchanged(error: unknown): boolean {
  return error instanceof ConnectorError && (error.unsent || ['auth_failed', 'permission_denied', 'not_found', 'invalid', 'policy', 'tls'].includes(error.reason));
}
