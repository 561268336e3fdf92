import { activeDirectoryConnector } from './active-directory.connector';
import { Connector, ConnectorKind } from './connector';
import { ldapConnector } from './ldap.connector';
import { mysqlConnector } from './mysql.connector';
import { postgresqlConnector } from './postgresql.connector';
import { sshConnector } from './ssh.connector';

export const CONNECTORS: Record<ConnectorKind, Connector> = {
  ssh: sshConnector,
  postgresql: postgresqlConnector,
  mysql: mysqlConnector,
  ldap: ldapConnector,
  ad: activeDirectoryConnector,
};

// Resource types (lower-cased) each connector serves; adding a kind adds a line here.
const KIND_OF_TYPE: Record<string, ConnectorKind> = {
  linux: 'ssh',
  unix: 'ssh',
  postgresql: 'postgresql',
  'mysql server': 'mysql',
  mysql: 'mysql',
  mariadb: 'mysql',
  'ldap server': 'ldap',
  ldap: 'ldap',
  'windows domain': 'ad',
  windowsdomain: 'ad',
  'active directory': 'ad',
};

/** The connector of a resource type, or undefined when no connector serves it. */
export function connectorForType(resourceType: string): Connector | undefined {
  const kind = KIND_OF_TYPE[resourceType.trim().toLowerCase()];
  return kind ? CONNECTORS[kind] : undefined;
}

/** The resource types a connector serves, for messages. */
export const SUPPORTED_TYPES = ['Linux', 'Unix', 'PostgreSQL', 'MySQL Server', 'MariaDB', 'LDAP Server', 'Windows Domain'];
