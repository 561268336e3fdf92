import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Attribute, Change, Client, EqualityFilter } from 'ldapts';

const run = promisify(execFile);

/**
 * Samba as an Active Directory domain controller of the test's own (Debian's `samba`):
 * provisioned with `samba-tool domain provision` into a temporary folder, listening for LDAP
 * and LDAPS only, on a loopback address of its own (127.0.0.x, added to `lo` for the run:
 * Samba binds to interface addresses, and its ports are fixed). Its TLS certificate is one
 * the fixture made for that address, so clients verify it.
 */
export interface SambaFixture {
  host: string;
  ldapsPort: number;
  ldapPort: number;
  baseDn: string;
  usersDn: string;
  domain: string;
  admin: { username: string; password: string };
  certPem: string;
  /** A client bound as the domain Administrator over LDAPS. */
  root(): Promise<Client>;
  createUser(name: string, password: string, extra?: { mail?: string; displayName?: string; ou?: string }): Promise<string>;
  setPassword(name: string, password: string): Promise<void>;
  setEnabled(name: string, enabled: boolean): Promise<void>;
  createGroup(name: string, ou?: string): Promise<string>;
  addMember(group: string, user: string): Promise<void>;
  removeMember(group: string, user: string): Promise<void>;
  createOu(name: string): Promise<string>;
  /** Sets attributes of the domain object (minPwdLength, pwdProperties...). */
  setDomainPolicy(values: Record<string, string>): Promise<void>;
  renameUser(name: string, newName: string): Promise<void>;
  deleteUser(name: string): Promise<void>;
  /** Whether `name` (sAMAccountName) binds with `password`. */
  login(name: string, password: string): Promise<boolean>;
  stop(): Promise<void>;
}

const REALM = 'LAB.TEST';
const BASE = 'DC=lab,DC=test';
const ADMIN_PASSWORD = 'Samba-Admin-Pass-1';

export const unicodePwd = (password: string) => Buffer.from(`"${password}"`, 'utf16le');

/** A loopback address no other test uses now: nothing listens on its LDAP port. */
async function freeAddress(): Promise<string> {
  const assigned = execFileSync('ip', ['-o', '-4', 'addr', 'show', 'dev', 'lo'], { encoding: 'utf8' });
  for (let tries = 0; tries < 50; tries++) {
    const host = `127.0.0.${90 + Math.floor(Math.random() * 60)}`;
    if (assigned.includes(` ${host}/`)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(636, host, () => server.close(() => resolve(true)));
    });
    if (free) return host;
  }
  throw new Error('No free loopback address for Samba');
}

export async function startSamba(): Promise<SambaFixture> {
  const host = await freeAddress();
  const dir = mkdtempSync(join(tmpdir(), 'vault-samba-'));
  const [certFile, keyFile] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${host}`, '-addext', `subjectAltName=IP:${host}`, '-days', '2', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
  execFileSync('ip', ['addr', 'add', `${host}/32`, 'dev', 'lo']);
  let child: ChildProcess | undefined;
  const cleanUp = () => {
    child?.kill('SIGKILL');
    try {
      execFileSync('ip', ['addr', 'del', `${host}/32`, 'dev', 'lo'], { stdio: 'ignore' });
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run('samba-tool', [
      'domain', 'provision', `--targetdir=${dir}`, `--realm=${REALM}`, '--domain=LAB', '--server-role=dc', '--dns-backend=NONE', `--adminpass=${ADMIN_PASSWORD}`,
      `--option=interfaces=${host}`, '--option=bind interfaces only=yes', `--option=tls keyfile=${keyFile}`, `--option=tls certfile=${certFile}`, '--option=tls cafile=',
      '--option=server services=ldap', `--option=pid directory=${dir}`, `--option=log file=${join(dir, 'log.%m')}`, '--option=netbios name=DC1',
    ]);
    // Samba accepts the old password for an hour after a reset (for NTLM clients); Windows does not on an LDAP bind.
    const conf = join(dir, 'etc', 'smb.conf');
    writeFileSync(conf, readFileSync(conf, 'utf8').replace('[global]\n', '[global]\n\told password allowed period = 0\n'));
    child = spawn('samba', ['-i', '-s', join(dir, 'etc', 'smb.conf'), '-M', 'single'], { stdio: 'ignore' });
    const certPem = readFileSync(certFile, 'utf8');
    const connect = () => new Client({ url: `ldaps://${host}:636`, tlsOptions: { ca: certPem }, connectTimeout: 5000, timeout: 30_000 });
    const root = async () => {
      const client = connect();
      await client.bind(`Administrator@${REALM.toLowerCase()}`, ADMIN_PASSWORD);
      return client;
    };
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await (await root()).unbind();
        break;
      } catch (error) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`samba did not start: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const admin = await root();
    const usersDn = `CN=Users,${BASE}`;
    // The entry's CN is the name made DN-safe; accounts are found by sAMAccountName, as the connector does.
    const userDn = (name: string, ou?: string) => `CN=${name.replace(/[^\w.-]/g, '_')},${ou ?? usersDn}`;
    const dnOf = async (name: string): Promise<string> => {
      const { searchEntries } = await admin.search(BASE, { scope: 'sub', filter: new EqualityFilter({ attribute: 'sAMAccountName', value: name }), attributes: ['1.1'] });
      if (!searchEntries[0]) throw new Error(`no ${name} in the directory`);
      return searchEntries[0].dn;
    };
    const replace = async (dn: string, type: string, values: (string | Buffer)[]) =>
      admin.modify(dn, new Change({ operation: 'replace', modification: new Attribute({ type, values: values as string[] }) }));
    return {
      host,
      ldapsPort: 636,
      ldapPort: 389,
      baseDn: BASE,
      usersDn,
      domain: REALM.toLowerCase(),
      admin: { username: `LAB\\Administrator`, password: ADMIN_PASSWORD },
      certPem,
      root,
      async createUser(name, password, extra = {}) {
        const dn = userDn(name, extra.ou);
        await admin.add(dn, {
          objectClass: ['top', 'person', 'organizationalPerson', 'user'],
          sAMAccountName: name,
          userPrincipalName: `${name}@${REALM.toLowerCase()}`,
          ...(extra.mail ? { mail: extra.mail } : {}),
          ...(extra.displayName ? { displayName: extra.displayName } : {}),
          unicodePwd: unicodePwd(password) as unknown as string,
          userAccountControl: '512',
        });
        return dn;
      },
      async setPassword(name, password) {
        await replace(await dnOf(name), 'unicodePwd', [unicodePwd(password)]);
      },
      async setEnabled(name, enabled) {
        await replace(await dnOf(name), 'userAccountControl', [enabled ? '512' : '514']);
      },
      async createGroup(name, ou) {
        const dn = `CN=${name},${ou ?? usersDn}`;
        await admin.add(dn, { objectClass: ['top', 'group'], sAMAccountName: name });
        return dn;
      },
      async addMember(group, user) {
        await admin.modify(await dnOf(group), new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: [await dnOf(user)] }) }));
      },
      async removeMember(group, user) {
        await admin.modify(await dnOf(group), new Change({ operation: 'delete', modification: new Attribute({ type: 'member', values: [await dnOf(user)] }) }));
      },
      async renameUser(name, newName) {
        const dn = await dnOf(name);
        await replace(dn, 'sAMAccountName', [newName]);
        await replace(dn, 'userPrincipalName', [`${newName}@${REALM.toLowerCase()}`]);
      },
      async deleteUser(name) {
        await admin.del(await dnOf(name));
      },
      async setDomainPolicy(values) {
        for (const [type, value] of Object.entries(values)) await replace(BASE, type, [value]);
      },
      async createOu(name) {
        const dn = `OU=${name},${BASE}`;
        await admin.add(dn, { objectClass: ['top', 'organizationalUnit'], ou: name });
        return dn;
      },
      async login(name, password) {
        const client = connect();
        try {
          await client.bind(`${name}@${REALM.toLowerCase()}`, password);
          return true;
        } catch {
          return false;
        } finally {
          await client.unbind().catch(() => undefined);
        }
      },
      async stop() {
        await admin.unbind().catch(() => undefined);
        cleanUp();
      },
    };
  } catch (error) {
    cleanUp();
    throw error;
  }
}

