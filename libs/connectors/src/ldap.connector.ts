import { randomBytes } from 'node:crypto';
import { Attribute, Change, Client, InsufficientAccessError, InvalidCredentialsError, NoSuchAttributeError, NoSuchObjectError, PresenceFilter, ProtocolError, UnavailableCriticalExtensionError } from 'ldapts';
import { AdminSession, Connector, ConnectorError, ConnectorTarget, networkFailure, where } from './connector';
import { accountDn, accountsBase, passwordModifyRequest } from './ldap-dn';
import { openDirectory } from './ldap-client';
import { checkTlsMode } from './tls';

// A simple bind sends the password as it is: only over TLS whose certificate is checked (issue 33).
const MODES = ['starttls', 'verify'] as const;
const PASSWORD_MODIFY = '1.3.6.1.4.1.4203.1.11.1';

/**
 * LDAP directories (OpenLDAP and others): the RFC 3062 password-modify operation, which
 * lets the server hash the password its own way, or a `userPassword` replace where the
 * server lacks it. An account's entry is USERDN with its escaped name as `{account}`; the
 * administrator binds with its own name when that is a DN, else through the template too.
 * `verify` speaks LDAPS; `starttls` upgrades a plain connection and checks the certificate
 * like `verify`. There is no mode without a checked certificate: a bind sends the password. The administrator needs write access to the accounts'
 * userPassword (OpenLDAP: the rootDN, or an olcAccess rule granting it).
 */
export const ldapConnector: Connector = {
  kind: 'ldap',
  defaultPort: 389,
  tlsModes: MODES,

  async connect(target, admin) {
    const dn = adminDn(target, admin.username);
    const client = await bound(target, dn, admin.password);
    return new LdapSession(client, target, dn);
  },

  async verify(target, account, password, administrator = false) {
    try {
      const client = await bound(target, administrator ? adminDn(target, account) : dnOf(target, account), password);
      await client.unbind().catch(() => undefined);
      return true;
    } catch (error) {
      if (error instanceof ConnectorError && error.reason === 'auth_failed') return false;
      throw error;
    }
  },
};

class LdapSession implements AdminSession {
  constructor(
    private readonly client: Client,
    private readonly target: ConnectorTarget,
    private readonly admin: string,
  ) {}

  /**
   * The bind proved the credential; then one account entry of the branch proves the right:
   * a modify deleting a userPassword value the entry does not hold. The server checks write
   * access first (insufficientAccessRights when refused), then finds the value missing
   * (noSuchAttribute): nothing can change, even on a server that accepts such a delete.
   * The Assertion control (RFC 4528) cannot do this: OpenLDAP tests the assertion before access.
   */
  async checkPrivilege(): Promise<void> {
    const base = accountsBase(template(this.target));
    const entry = await this.someAccount(base);
    if (!entry) return; // An empty branch: nothing to prove the right on yet (docs/api/vault.md).
    const absent = `vault-privilege-check-${randomBytes(24).toString('base64url')}`;
    try {
      await this.client.modify(entry, new Change({ operation: 'delete', modification: new Attribute({ type: 'userPassword', values: [absent] }) }));
    } catch (error) {
      if (error instanceof NoSuchAttributeError) return; // Permitted; refused for the missing value only.
      if (error instanceof InsufficientAccessError) throw new ConnectorError('permission_denied', `${this.admin} may not write userPassword of ${entry} on ${where(this.target)}`);
      throw mapError(error, this.target, this.admin);
    }
  }

  /** The DN of one account-like entry (the template's naming attribute present) under the branch, not the administrator's own. */
  private async someAccount(base: string): Promise<string | undefined> {
    const naming = template(this.target).slice(0, template(this.target).indexOf('='));
    try {
      const { searchEntries } = await this.client.search(base, { scope: 'one', filter: new PresenceFilter({ attribute: naming }), attributes: ['1.1'], sizeLimit: 2 });
      return searchEntries.map((e) => e.dn).find((dn) => canonical(dn) !== canonical(this.admin));
    } catch (error) {
      if (error instanceof NoSuchObjectError) throw new ConnectorError('not_found', `${base} does not exist on ${where(this.target)} (or ${this.admin} may not see it)`);
      throw mapError(error, this.target, this.admin);
    }
  }

  async changePassword(account: string, newPassword: string): Promise<void> {
    const dn = dnOf(this.target, account);
    try {
      await this.client.exop(PASSWORD_MODIFY, passwordModifyRequest(dn, newPassword));
    } catch (error) {
      if (!(error instanceof ProtocolError || error instanceof UnavailableCriticalExtensionError)) throw changeError(error, this.target, this.admin, account);
      // No password-modify operation: replace the attribute (the server stores what it is given).
      await this.client
        .modify(dn, new Change({ operation: 'replace', modification: new Attribute({ type: 'userPassword', values: [newPassword] }) }))
        .catch((e: unknown) => Promise.reject(changeError(e, this.target, this.admin, account)));
    }
  }

  async close(): Promise<void> {
    await this.client.unbind().catch(() => undefined);
  }
}

/** A DN compared loosely: case and the spaces around separators do not matter. */
function canonical(dn: string): string {
  return dn.toLowerCase().replace(/\s*([,=+])\s*/g, '$1');
}

function template(target: ConnectorTarget): string {
  if (!target.userDn) throw new ConnectorError('invalid', `No USERDN template is configured for ${where(target)}`);
  return target.userDn;
}

/** The administrator binds with its own name when that is a DN (the rootDN, a service entry), else through the template. */
function adminDn(target: ConnectorTarget, name: string): string {
  return name.includes('=') ? name : dnOf(target, name);
}

/** Any other account's entry: always the template, its name one escaped value. */
function dnOf(target: ConnectorTarget, account: string): string {
  if (!account || account.includes('\0')) throw new ConnectorError('invalid', `${JSON.stringify(account)} is not an LDAP account name`);
  return accountDn(template(target), account);
}

async function bound(target: ConnectorTarget, dn: string, password: string): Promise<Client> {
  checkTlsMode(target, MODES);
  // An empty password would be an unauthenticated bind (RFC 4513 5.1.2), which "succeeds".
  if (!password) throw new ConnectorError('auth_failed', `Login as ${dn} to ${where(target)} was refused: empty password`);
  let client: Client | undefined;
  try {
    client = await openDirectory(target);
    await client.bind(dn, password);
    return client;
  } catch (error) {
    await client?.unbind().catch(() => undefined);
    if (error instanceof InvalidCredentialsError) throw new ConnectorError('auth_failed', `Login as ${dn} to ${where(target)} was refused`);
    throw mapError(error, target, dn);
  }
}

function changeError(error: unknown, target: ConnectorTarget, admin: string, account: string): Error {
  if (error instanceof NoSuchObjectError) return new ConnectorError('not_found', `User ${account} does not exist on ${where(target)}`);
  if (error instanceof InsufficientAccessError) return new ConnectorError('permission_denied', `${admin} may not change the password of ${account} on ${where(target)}`);
  return mapError(error, target, admin);
}

function mapError(error: unknown, target: ConnectorTarget, who: string): Error {
  if (error instanceof ConnectorError) return error;
  const network = networkFailure(error, target);
  if (network) return network;
  const message = (error as Error)?.message ?? '';
  if (/timeout|timed out/i.test(message)) return new ConnectorError('timeout', `Cannot reach ${where(target)}: timed out`);
  if (/closed|ECONNRESET/i.test(message)) return new ConnectorError('unreachable', `Cannot reach ${where(target)}: connection closed`);
  const code = (error as { code?: number }).code;
  if (typeof code === 'number') return new ConnectorError('failed', `The directory on ${where(target)} answered result code ${code} to ${who}`);
  return error instanceof Error ? error : new Error(String(error));
}
