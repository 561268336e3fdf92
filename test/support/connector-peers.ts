import { randomBytes } from 'node:crypto';
import { Attribute, Change, Client } from 'ldapts';
import { ConnectorKind, ConnectorTarget, Credential, accountDn } from '@app/connectors';
import { startMariadb } from './mariadb';
import { startPostgresPeer } from './postgres-peer';
import { startSamba } from './samba';
import { startSlapd } from './slapd';
import { startSshd } from './sshd';

/**
 * One real peer per connector kind, seen the same way by the contract test and the e2e
 * tests: its address (with TLS as the peer speaks it), an administrator, and its own means
 * to create accounts, set a password behind the vault's back and try a login.
 */
export interface ConnectorPeer {
  kind: ConnectorKind;
  /** The vault resource type this kind serves. */
  resourceType: string;
  target: ConnectorTarget;
  /** PUT .../remotepasswordreset fields for this peer (besides ACCOUNTNAME). */
  config: Record<string, string>;
  /** The same peer with TLS `verify` and no CA given: its self-signed certificate must be refused. */
  untrusted?: { target: ConnectorTarget; config: Record<string, string> };
  /** The same peer verified against its own certificate (CACERT). */
  trusted?: { target: ConnectorTarget; config: Record<string, string> };
  admin: Credential;
  /** Administrators besides `admin`: `writer` may change passwords, `reader` logs in and sees the accounts but may not. */
  lesserAdmins: { writer: Credential; reader: Credential };
  /** What the connector says when `reader` is proven not to have the right. */
  refusalOf(reader: string): string;
  /** Names the kind allows that would break a spliced statement, DN or filter. */
  hostileNames: string[];
  /** Creates an account (named `name` when given) holding `password`; returns its name. */
  createAccount(password: string, name?: string): Promise<string>;
  /** Sets a password on the target directly, as an operator would behind the vault's back. */
  setPassword(name: string, password: string): Promise<void>;
  /** Whether `name` logs in with `password`, by the peer's own client. */
  login(name: string, password: string): Promise<boolean>;
  /** Whether the administrator still exists and logs in (a hostile name did not touch it). */
  adminIntact(): Promise<boolean>;
  stop(): Promise<void>;
}

export const PEER_KINDS: ConnectorKind[] = ['ssh', 'postgresql', 'mysql', 'ldap', 'ad'];

export function startPeer(kind: ConnectorKind): Promise<ConnectorPeer> {
  return { ssh: sshPeer, postgresql: postgresqlPeer, mysql: mysqlPeer, ldap: ldapPeer, ad: adPeer }[kind]();
}

const rand = () => randomBytes(4).toString('hex');
const ADMIN_PASSWORD = 'Peer-Admin-Pass-1';
const LESSER_PASSWORD = 'Peer-Lesser-Pass-1';

async function sshPeer(): Promise<ConnectorPeer> {
  const sshd = await startSshd();
  const admin = await sshd.createUser(ADMIN_PASSWORD, { sudo: true });
  const [writer, reader] = [await sshd.createUser(LESSER_PASSWORD, { sudo: true }), await sshd.createUser(LESSER_PASSWORD)];
  const target: ConnectorTarget = { host: sshd.host, port: sshd.port, orgId: 0, tls: 'off' };
  return {
    kind: 'ssh',
    resourceType: 'Linux',
    target,
    config: { DNSNAME: sshd.host, PORT: String(sshd.port) },
    admin: { username: admin, password: ADMIN_PASSWORD },
    lesserAdmins: { writer: { username: writer, password: LESSER_PASSWORD }, reader: { username: reader, password: LESSER_PASSWORD } },
    refusalOf: (r) => `${r} on ${sshd.host}:${sshd.port} is neither root nor allowed to use sudo`,
    // useradd would refuse these; the connector refuses them before connecting.
    hostileNames: [],
    createAccount: (password) => sshd.createUser(password),
    async setPassword(name, password) {
      const { execFileSync } = await import('node:child_process');
      execFileSync('chpasswd', { input: `${name}:${password}\n` });
    },
    async login(name, password) {
      return (await sshd.clientLogin(name, { password })).ok;
    },
    async adminIntact() {
      return (await sshd.clientLogin(admin, { password: ADMIN_PASSWORD })).ok;
    },
    stop: () => sshd.stop(),
  };
}

async function postgresqlPeer(): Promise<ConnectorPeer> {
  const pg = await startPostgresPeer();
  const root = await pg.root();
  const admin = `vt_admin_${rand()}`;
  await root.query(`CREATE ROLE ${admin} LOGIN CREATEROLE PASSWORD '${ADMIN_PASSWORD}'`);
  const [pgWriter, pgReader] = [`vt_writer_${rand()}`, `vt_reader_${rand()}`];
  await root.query(`CREATE ROLE ${pgWriter} LOGIN CREATEROLE PASSWORD '${LESSER_PASSWORD}'`);
  await root.query(`CREATE ROLE ${pgReader} LOGIN PASSWORD '${LESSER_PASSWORD}'`);
  const target: ConnectorTarget = { host: pg.host, port: pg.port, orgId: 0, tls: 'require', database: 'postgres' };
  const login = async (name: string, password: string) => {
    const { Client: PgClient } = await import('pg');
    const client = new PgClient({ host: pg.host, port: pg.port, user: name, password, database: 'postgres', ssl: false });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return true;
    } catch {
      return false;
    }
  };
  return {
    kind: 'postgresql',
    resourceType: 'PostgreSQL',
    target,
    config: { DNSNAME: pg.host, PORT: String(pg.port), TLS: 'require', DATABASE: 'postgres' },
    untrusted: { target: { ...target, tls: 'verify' }, config: { DNSNAME: pg.host, PORT: String(pg.port), TLS: 'verify' } },
    trusted: { target: { ...target, tls: 'verify', caCert: pg.certPem }, config: { DNSNAME: pg.host, PORT: String(pg.port), TLS: 'verify', CACERT: pg.certPem } },
    admin: { username: admin, password: ADMIN_PASSWORD },
    lesserAdmins: { writer: { username: pgWriter, password: LESSER_PASSWORD }, reader: { username: pgReader, password: LESSER_PASSWORD } },
    refusalOf: (r) => `${r} on ${pg.host}:${pg.port} is neither a superuser nor allowed to create roles (CREATEROLE)`,
    hostileNames: [`x" ; DROP ROLE ${admin}; --`, `q'; ALTER ROLE ${admin} NOLOGIN; --`],
    async createAccount(password, name = `vt_user_${rand()}`) {
      await root.query(`CREATE ROLE ${root.escapeIdentifier(name)} LOGIN PASSWORD ${root.escapeLiteral(password)}`);
      return name;
    },
    async setPassword(name, password) {
      await root.query(`ALTER ROLE ${root.escapeIdentifier(name)} PASSWORD ${root.escapeLiteral(password)}`);
    },
    login,
    adminIntact: () => login(admin, ADMIN_PASSWORD),
    async stop() {
      await root.end().catch(() => undefined);
      await pg.stop();
    },
  };
}

async function mysqlPeer(): Promise<ConnectorPeer> {
  const db = await startMariadb();
  const root = await db.root();
  const admin = `vt_admin_${rand()}`;
  await root.query(`CREATE USER ?@'%' IDENTIFIED BY ?`, [admin, ADMIN_PASSWORD]);
  await root.query(`GRANT ALL PRIVILEGES ON *.* TO ?@'%' WITH GRANT OPTION`, [admin]);
  // The least a writer needs (docs/api/vault.md): CREATE USER and reading mysql.user; the reader has only the latter.
  const [myWriter, myReader] = [`vt_writer_${rand()}`, `vt_reader_${rand()}`];
  for (const name of [myWriter, myReader]) {
    await root.query(`CREATE USER ?@'%' IDENTIFIED BY ?`, [name, LESSER_PASSWORD]);
    await root.query(`GRANT SELECT ON mysql.user TO ?@'%'`, [name]);
  }
  await root.query(`GRANT CREATE USER ON *.* TO ?@'%'`, [myWriter]);
  const target: ConnectorTarget = { host: db.host, port: db.port, orgId: 0, tls: 'require' };
  const login = async (name: string, password: string) => {
    const { createConnection } = await import('mysql2/promise');
    try {
      await (await createConnection({ host: db.host, port: db.port, user: name, password })).end();
      return true;
    } catch {
      return false;
    }
  };
  return {
    kind: 'mysql',
    resourceType: 'MySQL Server',
    target,
    config: { DNSNAME: db.host, PORT: String(db.port), TLS: 'require' },
    untrusted: { target: { ...target, tls: 'verify' }, config: { DNSNAME: db.host, PORT: String(db.port), TLS: 'verify' } },
    trusted: { target: { ...target, tls: 'verify', caCert: db.certPem }, config: { DNSNAME: db.host, PORT: String(db.port), TLS: 'verify', CACERT: db.certPem } },
    admin: { username: admin, password: ADMIN_PASSWORD },
    lesserAdmins: { writer: { username: myWriter, password: LESSER_PASSWORD }, reader: { username: myReader, password: LESSER_PASSWORD } },
    refusalOf: (r) => `${r} on ${db.host}:${db.port} lacks the CREATE USER privilege`,
    hostileNames: [`x' ; DROP USER ${admin}; --`, `y\\' OR 1=1 -- "`],
    async createAccount(password, name = `vt_user_${rand()}`) {
      await root.query(`CREATE USER ?@'%' IDENTIFIED BY ?`, [name, password]);
      return name;
    },
    async setPassword(name, password) {
      await root.query(`ALTER USER ?@'%' IDENTIFIED BY ?`, [name, password]);
    },
    login,
    adminIntact: () => login(admin, ADMIN_PASSWORD),
    async stop() {
      await root.end().catch(() => undefined);
      await db.stop();
    },
  };
}

async function ldapPeer(): Promise<ConnectorPeer> {
  const slapd = await startSlapd();
  const root = await slapd.root();
  const template = slapd.userDnTemplate;
  // LDAP binds only over checked TLS (issue 33): STARTTLS with the peer's own CA.
  const target: ConnectorTarget = { host: slapd.host, port: slapd.port, orgId: 0, tls: 'starttls', caCert: slapd.certPem, userDn: template };
  const login = async (dn: string, password: string) => {
    const client = new Client({ url: `ldap://${slapd.host}:${slapd.port}`, connectTimeout: 5000, timeout: 10_000 });
    try {
      await client.bind(dn, password);
      return true;
    } catch {
      return false;
    } finally {
      await client.unbind().catch(() => undefined);
    }
  };
  const ldapsConfig = { DNSNAME: slapd.host, PORT: String(slapd.ldapsPort), USERDN: template };
  return {
    kind: 'ldap',
    resourceType: 'LDAP Server',
    target,
    config: { DNSNAME: slapd.host, PORT: String(slapd.port), TLS: 'starttls', CACERT: slapd.certPem, USERDN: template },
    untrusted: { target: { ...target, caCert: undefined, port: slapd.ldapsPort, tls: 'verify' }, config: { ...ldapsConfig, TLS: 'verify' } },
    trusted: { target: { ...target, tls: 'starttls', caCert: slapd.certPem }, config: { DNSNAME: slapd.host, PORT: String(slapd.port), USERDN: template, TLS: 'starttls', CACERT: slapd.certPem } },
    admin: { username: slapd.rootDn, password: slapd.rootPassword },
    lesserAdmins: {
      writer: { username: slapd.serviceAdmins.writer, password: slapd.serviceAdmins.password },
      reader: { username: slapd.serviceAdmins.reader, password: slapd.serviceAdmins.password },
    },
    refusalOf: (r) => `${r} may not write userPassword of uid=`,
    hostileNames: ['*)(uid=*', 'x,ou=admins', 'a+cn=admin,dc=example,dc=org'],
    async createAccount(password, name = `vt${rand()}`) {
      await root.add(accountDn(template, name), {
        objectClass: ['inetOrgPerson'],
        uid: name,
        cn: name,
        sn: name,
        userPassword: password,
      });
      return name;
    },
    async setPassword(name, password) {
      await root.modify(accountDn(template, name), new Change({ operation: 'replace', modification: new Attribute({ type: 'userPassword', values: [password] }) }));
    },
    login: (name, password) => login(accountDn(template, name), password),
    adminIntact: () => login(slapd.rootDn, slapd.rootPassword),
    async stop() {
      await root.unbind().catch(() => undefined);
      await slapd.stop();
    },
  };
}

async function adPeer(): Promise<ConnectorPeer> {
  const dc = await startSamba();
  // Over LDAPS, verified against the certificate the fixture made for the DC's address.
  const target: ConnectorTarget = { host: dc.host, port: dc.ldapsPort, orgId: 0, tls: 'verify', caCert: dc.certPem, userDn: dc.baseDn };
  const lesser = LESSER_PASSWORD;
  const writer = `vtw${rand()}`;
  const reader = `vtr${rand()}`;
  await dc.createUser(writer, lesser);
  await dc.addMember('Domain Admins', writer);
  await dc.createUser(reader, lesser);
  return {
    kind: 'ad',
    resourceType: 'Windows Domain',
    target,
    config: { DNSNAME: dc.host, PORT: String(dc.ldapsPort), TLS: 'verify', CACERT: dc.certPem, USERDN: dc.baseDn },
    untrusted: { target: { ...target, caCert: undefined }, config: { DNSNAME: dc.host, TLS: 'verify', USERDN: dc.baseDn } },
    trusted: { target: { ...target, tls: 'starttls', port: dc.ldapPort }, config: { DNSNAME: dc.host, PORT: String(dc.ldapPort), TLS: 'starttls', CACERT: dc.certPem, USERDN: dc.baseDn } },
    admin: dc.admin,
    lesserAdmins: { writer: { username: `${writer}@${dc.domain}`, password: lesser }, reader: { username: `LAB\\${reader}`, password: lesser } },
    refusalOf: (r) => `${r} may not write unicodePwd of CN=`,
    // Names AD allows that would break a spliced filter or DN.
    hostileNames: ['x)(cn', 'o(brien)&x', 'a(b)!c'],
    async createAccount(password, name = `vt${rand()}`) {
      await dc.createUser(name, password);
      return name;
    },
    setPassword: (name, password) => dc.setPassword(name, password),
    login: (name, password) => dc.login(name, password),
    adminIntact: () => dc.login('Administrator', dc.admin.password),
    stop: () => dc.stop(),
  };
}
