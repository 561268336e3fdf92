import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'ldapts';
import { selfSignedLoopback } from './peer-tls';
import { freePort } from './free-port';

const run = promisify(execFile);
const SCHEMAS = ['core', 'cosine', 'nis', 'inetorgperson'];

/**
 * An OpenLDAP slapd of the test's own: cn=config built with slapadd in a temporary folder,
 * one mdb database (dc=example,dc=org, accounts under ou=people), listening on free loopback
 * ports for ldap:// (StartTLS offered) and ldaps://, with a self-signed certificate.
 */
export interface SlapdFixture {
  host: string;
  port: number;
  ldapsPort: number;
  suffix: string;
  rootDn: string;
  rootPassword: string;
  userDnTemplate: string;
  certPem: string;
  /** Service entries outside the accounts' branch: `writer` may write every userPassword, `reader` only reads the tree. */
  serviceAdmins: { writer: string; reader: string; password: string };
  /** A client bound as the rootDN over plain LDAP. */
  root(): Promise<Client>;
  stop(): Promise<void>;
}

export async function startSlapd(): Promise<SlapdFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'vault-slapd-'));
  const config = join(dir, 'slapd.d');
  const db = join(dir, 'db');
  mkdirSync(config);
  mkdirSync(db);
  const cert = selfSignedLoopback(dir);
  const suffix = 'dc=example,dc=org';
  const rootDn = `cn=admin,${suffix}`;
  const rootPassword = 'Slapd-Root-Pass-1';
  const writer = `cn=pwadmin,${suffix}`;
  const reader = `cn=reader,${suffix}`;
  const servicePassword = 'Slapd-Service-Pass-1';
  writeFileSync(
    join(dir, 'config.ldif'),
    [
      'dn: cn=config',
      'objectClass: olcGlobal',
      'cn: config',
      `olcPidFile: ${join(dir, 'slapd.pid')}`,
      `olcTLSCertificateFile: ${cert.certFile}`,
      `olcTLSCertificateKeyFile: ${cert.keyFile}`,
      '',
      'dn: cn=module{0},cn=config',
      'objectClass: olcModuleList',
      'cn: module{0}',
      'olcModulePath: /usr/lib/ldap',
      'olcModuleLoad: back_mdb',
      '',
      'dn: cn=schema,cn=config',
      'objectClass: olcSchemaConfig',
      'cn: schema',
      '',
      ...SCHEMAS.map((s) => `include: file:///etc/ldap/schema/${s}.ldif\n`),
      'dn: olcDatabase={0}config,cn=config',
      'objectClass: olcDatabaseConfig',
      'olcDatabase: {0}config',
      'olcAccess: to * by * none',
      '',
      'dn: olcDatabase={1}mdb,cn=config',
      'objectClass: olcDatabaseConfig',
      'objectClass: olcMdbConfig',
      'olcDatabase: {1}mdb',
      `olcDbDirectory: ${db}`,
      `olcSuffix: ${suffix}`,
      `olcRootDN: ${rootDn}`,
      `olcRootPW: ${rootPassword}`,
      'olcDbMaxSize: 67108864',
      `olcAccess: to attrs=userPassword by self write by dn.exact="${writer}" write by anonymous auth by * none`,
      'olcAccess: to * by * read',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'data.ldif'),
    [`dn: ${suffix}`, 'objectClass: dcObject', 'objectClass: organization', 'dc: example', 'o: Example', '', `dn: ou=people,${suffix}`, 'objectClass: organizationalUnit', 'ou: people', '',
      ...[writer, reader].flatMap((dn) => [`dn: ${dn}`, 'objectClass: organizationalRole', 'objectClass: simpleSecurityObject', `cn: ${dn.slice(3, dn.indexOf(','))}`, `userPassword: ${servicePassword}`, '']),
    ].join('\n'),
  );
  await run('slapadd', ['-n', '0', '-F', config, '-l', join(dir, 'config.ldif')]);
  await run('slapadd', ['-n', '1', '-F', config, '-l', join(dir, 'data.ldif')]);
  const [port, ldapsPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn('slapd', ['-F', config, '-h', `ldap://127.0.0.1:${port}/ ldaps://127.0.0.1:${ldapsPort}/`, '-d', '0'], { stdio: 'ignore' });
  const root = async () => {
    const client = new Client({ url: `ldap://127.0.0.1:${port}`, connectTimeout: 5000, timeout: 10_000 });
    await client.bind(rootDn, rootPassword);
    return client;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await (await root()).unbind();
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`slapd did not start: ${(error as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    host: '127.0.0.1',
    port,
    ldapsPort,
    suffix,
    rootDn,
    rootPassword,
    userDnTemplate: `uid={account},ou=people,${suffix}`,
    certPem: cert.certPem,
    serviceAdmins: { writer, reader, password: servicePassword },
    root,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
