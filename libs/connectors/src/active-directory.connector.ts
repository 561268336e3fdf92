import { AndFilter, Attribute, Change, Client, EqualityFilter, ExtensibleFilter, NotFilter, InsufficientAccessError, InvalidCredentialsError, NoSuchObjectError, OrFilter, ResultCodeError, StrongAuthRequiredError } from 'ldapts';
import { AdminSession, Connector, ConnectorError, ConnectorTarget, networkFailure, where } from './connector';
import { adFailure, bindName, domainOf, unicodePwd } from './active-directory';
import { openDirectory } from './ldap-client';
import { checkTlsMode } from './tls';

// AD sets unicodePwd only over an encrypted connection, and a bind sends the password: LDAPS or StartTLS, checked.
const MODES = ['verify', 'starttls'] as const;
const ACCOUNT_DISABLE = 0x2;
// LDAP_MATCHING_RULE_BIT_AND: userAccountControl with the bit set.
const BIT_AND = '1.2.840.113556.1.4.803';

/**
 * Active Directory domain controllers (Windows, Samba). The administrator (`DOMAIN\name`,
 * `name@domain` or a DN) binds; an account is found under the base DN (the resource's USERDN)
 * by `sAMAccountName` or `userPrincipalName`, with the name as one escaped filter value;
 * its password is reset by replacing `unicodePwd` with the quoted UTF-16LE value, the one
 * way AD accepts. Verification binds as the account (`name@dns-domain`, AD's implicit UPN,
 * or its UPN). AD's refusals become reasons a person can act on (active-directory.ts).
 */
export const activeDirectoryConnector: Connector = {
  kind: 'ad',
  defaultPort: 636,
  tlsModes: MODES,
  // The longest minimum a domain's group policy offers is 14; AD's complexity forbids the sAMAccountName.
  passwordRules: { minLength: 16, notContainingAccount: true },

  async connect(target, admin) {
    const name = bindName(baseOf(target), admin.username, true);
    const client = await bound(target, name, admin.password);
    return new AdSession(client, target, name);
  },

  async verify(target, account, password, administrator = false) {
    try {
      const client = await bound(target, bindName(baseOf(target), account, administrator), password);
      await client.unbind().catch(() => undefined);
      return true;
    } catch (error) {
      if (error instanceof ConnectorError && error.reason === 'auth_failed') return false;
      // The password is right but has to be changed (expired, or "must change at next logon"): it is the password.
      if (error instanceof ConnectorError && error.reason === 'expired') return true;
      throw error;
    }
  },
};

class AdSession implements AdminSession {
  constructor(
    private readonly client: Client,
    private readonly target: ConnectorTarget,
    private readonly admin: string,
  ) {}

  /**
   * The bind proved the credential; AD's own answer then proves the right without changing
   * anything: `allowedAttributesEffective` of an enabled account of the branch lists
   * unicodePwd only when this administrator may write it.
   */
  async checkPrivilege(): Promise<void> {
    const base = baseOf(this.target);
    try {
      const filter = new AndFilter({
        filters: [
          new EqualityFilter({ attribute: 'objectCategory', value: 'person' }),
          new EqualityFilter({ attribute: 'objectClass', value: 'user' }),
          new NotFilter({ filter: new ExtensibleFilter({ rule: BIT_AND, matchType: 'userAccountControl', value: String(ACCOUNT_DISABLE) }) }),
        ],
      });
      const { searchEntries } = await this.client.search(base, { scope: 'sub', filter, attributes: ['allowedAttributesEffective', 'sAMAccountName'], sizeLimit: 5, paged: false });
      const entry = searchEntries.find((e) => !sameName(String(e.sAMAccountName), this.admin)) ?? searchEntries[0];
      if (!entry) return; // No account under the base yet: nothing to prove the right on.
      const allowed = ([] as unknown[]).concat(entry.allowedAttributesEffective ?? []).map((a) => String(a).toLowerCase());
      if (!allowed.includes('unicodepwd')) throw new ConnectorError('permission_denied', `${this.admin} may not write unicodePwd of ${entry.dn} on ${where(this.target)}: it has no right to reset passwords under ${base}`);
    } catch (error) {
      throw mapError(error, this.target, this.admin);
    }
  }

  async changePassword(account: string, newPassword: string): Promise<void> {
    const dn = await this.find(account);
    try {
      await this.client.modify(dn, new Change({ operation: 'replace', modification: new Attribute({ type: 'unicodePwd', values: [unicodePwd(newPassword)] }) }));
    } catch (error) {
      if (error instanceof InsufficientAccessError) throw new ConnectorError('permission_denied', `${this.admin} may not reset the password of ${account} on ${where(this.target)}`);
      throw mapError(error, this.target, this.admin, account);
    }
  }

  /** The DN of the one user whose sAMAccountName or userPrincipalName is `account`. */
  private async find(account: string): Promise<string> {
    if (!account || account.includes('\0')) throw new ConnectorError('invalid', `${JSON.stringify(account)} is not an Active Directory account name`);
    const base = baseOf(this.target);
    const filter = new AndFilter({
      filters: [
        new EqualityFilter({ attribute: 'objectClass', value: 'user' }),
        new OrFilter({ filters: [new EqualityFilter({ attribute: 'sAMAccountName', value: account }), new EqualityFilter({ attribute: 'userPrincipalName', value: account })] }),
      ],
    });
    try {
      const { searchEntries } = await this.client.search(base, { scope: 'sub', filter, attributes: ['userAccountControl'], sizeLimit: 2, paged: false });
      if (searchEntries.length === 0) throw new ConnectorError('not_found', `User ${account} does not exist under ${base} on ${where(this.target)}`);
      if (searchEntries.length > 1) throw new ConnectorError('invalid', `More than one user is named ${account} under ${base} on ${where(this.target)}`);
      if (Number(searchEntries[0].userAccountControl) & ACCOUNT_DISABLE) {
        throw new ConnectorError('invalid', `User ${account} is disabled in the directory on ${where(this.target)}: enable it before changing its password`);
      }
      return searchEntries[0].dn;
    } catch (error) {
      throw mapError(error, this.target, this.admin, account);
    }
  }

  async close(): Promise<void> {
    await this.client.unbind().catch(() => undefined);
  }
}

function sameName(sam: string, admin: string): boolean {
  const bare = admin.includes('\\') ? admin.slice(admin.indexOf('\\') + 1) : admin.split('@')[0];
  return sam.toLowerCase() === bare.toLowerCase();
}

function baseOf(target: ConnectorTarget): string {
  if (!target.userDn) throw new ConnectorError('invalid', `No base DN (USERDN) is configured for ${where(target)}`);
  domainOf(target.userDn);
  return target.userDn;
}

async function bound(target: ConnectorTarget, name: string, password: string): Promise<Client> {
  checkTlsMode(target, MODES);
  // An empty password would be an unauthenticated bind (RFC 4513 5.1.2), which "succeeds".
  if (!password) throw new ConnectorError('auth_failed', `Login as ${name} to ${where(target)} was refused: empty password`);
  let client: Client | undefined;
  try {
    client = await openDirectory(target);
    await client.bind(name, password);
    return client;
  } catch (error) {
    await client?.unbind().catch(() => undefined);
    throw mapError(error, target, name);
  }
}

function mapError(error: unknown, target: ConnectorTarget, who: string, account?: string): Error {
  if (error instanceof ConnectorError) return error;
  const network = networkFailure(error, target);
  if (network) return network;
  const at = where(target);
  const message = (error as Error)?.message ?? '';
  if (error instanceof InvalidCredentialsError) {
    const failure = adFailure(message);
    if (failure) return new ConnectorError(failure.reason, `Login as ${who} to ${at} was refused: ${failure.why}`);
    return new ConnectorError('auth_failed', `Login as ${who} to ${at} was refused`);
  }
  if (error instanceof StrongAuthRequiredError) return new ConnectorError('tls', `${at} requires LDAP signing or an encrypted connection (result 8): use TLS verify or starttls`);
  if (error instanceof NoSuchObjectError) return new ConnectorError('not_found', `${baseOf(target)} does not exist on ${at} (or ${who} may not see it)`);
  if (error instanceof ResultCodeError) {
    const failure = adFailure(message, error.code);
    if (failure) return new ConnectorError(failure.reason, `${account ? `The password of ${account} was not changed on ${at}: ` : `${at}: `}${failure.why}`);
    return new ConnectorError('failed', `The domain controller ${at} answered result code ${error.code} to ${who}`);
  }
  if (/timeout|timed out/i.test(message)) return new ConnectorError('timeout', `Cannot reach ${at}: timed out`);
  if (/closed|ECONNRESET/i.test(message)) return new ConnectorError('unreachable', `Cannot reach ${at}: connection closed`);
  return error instanceof Error ? error : new Error(String(error));
}
