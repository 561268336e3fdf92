import { AndFilter, Client, EqualityFilter, Filter, FilterParser, InvalidCredentialsError, OrFilter } from 'ldapts';
import { adFailure, bindName, ConnectorError, ConnectorTarget, networkFailure, openDirectory, where } from '@app/connectors';

/** A person as the directory has them. */
export interface DirectoryUser {
  /** objectGUID in hex: survives renames and moves. */
  guid: string;
  dn: string;
  username: string;
  email: string;
  fullName: string;
  /** Disabled (userAccountControl ACCOUNTDISABLE) or locked out (lockoutTime): may not sign in. */
  barred: boolean;
  /** DNs of the groups the user is a direct member of. */
  memberOf: string[];
}

export interface DirectoryGroup {
  guid: string;
  dn: string;
  name: string;
}

export interface DirectorySearch {
  userBase: string;
  userFilter: string;
  groupBase: string;
  groupFilter: string;
}

const USER_ATTRIBUTES = ['objectGUID', 'sAMAccountName', 'mail', 'displayName', 'cn', 'userAccountControl', 'lockoutTime', 'memberOf'];
const PAGE = 500;

/** An administrator-written filter, parsed (never spliced with a user's name). */
export function parseFilter(text: string, field: string): Filter {
  try {
    return FilterParser.parseString(text);
  } catch {
    throw new ConnectorError('invalid', `${field} is not an LDAP filter: ${text}`);
  }
}

/**
 * Reads an Active Directory as its bind account: users and groups by the configured searches
 * (paged), one user by sAMAccountName or userPrincipalName (one escaped filter value), and a
 * user's password by binding as that user on a connection of its own.
 */
export class DirectoryReader {
  private constructor(
    private readonly client: Client,
    private readonly target: ConnectorTarget,
    private readonly search: DirectorySearch,
  ) {}

  static async open(target: ConnectorTarget, bind: { username: string; password: string }, search: DirectorySearch): Promise<DirectoryReader> {
    const client = await openDirectory(target);
    try {
      await client.bind(bindName(target.userDn ?? search.userBase, bind.username, true), bind.password);
    } catch (error) {
      await client.unbind().catch(() => undefined);
      throw failure(error, target, bind.username);
    }
    return new DirectoryReader(client, target, search);
  }

  async users(): Promise<DirectoryUser[]> {
    const { searchEntries } = await this.client.search(this.search.userBase, {
      scope: 'sub',
      filter: parseFilter(this.search.userFilter, 'USERFILTER'),
      attributes: USER_ATTRIBUTES,
      explicitBufferAttributes: ['objectGUID'],
      paged: { pageSize: PAGE },
    });
    return searchEntries.map(toUser).filter((u): u is DirectoryUser => !!u);
  }

  async groups(): Promise<DirectoryGroup[]> {
    const { searchEntries } = await this.client.search(this.search.groupBase, {
      scope: 'sub',
      filter: parseFilter(this.search.groupFilter, 'GROUPFILTER'),
      attributes: ['objectGUID', 'sAMAccountName', 'cn'],
      explicitBufferAttributes: ['objectGUID'],
      paged: { pageSize: PAGE },
    });
    return searchEntries.map((e) => ({ guid: guidOf(e.objectGUID), dn: e.dn, name: String(e.sAMAccountName || e.cn) })).filter((g) => g.guid && g.name);
  }

  /** The one user under the user search named `username`, or undefined. */
  async find(username: string): Promise<DirectoryUser | undefined> {
    const filter = new AndFilter({
      filters: [
        parseFilter(this.search.userFilter, 'USERFILTER'),
        new OrFilter({ filters: [new EqualityFilter({ attribute: 'sAMAccountName', value: username }), new EqualityFilter({ attribute: 'userPrincipalName', value: username })] }),
      ],
    });
    const { searchEntries } = await this.client.search(this.search.userBase, { scope: 'sub', filter, attributes: USER_ATTRIBUTES, explicitBufferAttributes: ['objectGUID'], sizeLimit: 2, paged: false });
    return searchEntries.length === 1 ? toUser(searchEntries[0]) : undefined;
  }

  /** Whether `password` binds as the user's DN; a barred account's refusal says why. */
  async passwordBinds(user: DirectoryUser, password: string): Promise<{ ok: boolean; why?: string }> {
    // An empty password would be an unauthenticated bind, which "succeeds".
    if (!password) return { ok: false, why: 'empty password' };
    const client = await openDirectory(this.target);
    try {
      await client.bind(user.dn, password);
      return { ok: true };
    } catch (error) {
      if (error instanceof InvalidCredentialsError) return { ok: false, why: adFailure(error.message)?.why ?? 'wrong password' };
      throw failure(error, this.target, user.username);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.client.unbind().catch(() => undefined);
  }
}

function toUser(e: Record<string, unknown> & { dn: string }): DirectoryUser | undefined {
  const guid = guidOf(e.objectGUID);
  const username = String(e.sAMAccountName ?? '');
  if (!guid || !username) return undefined;
  const uac = Number(e.userAccountControl ?? 0);
  const lockout = String(e.lockoutTime ?? '0');
  return {
    guid,
    dn: e.dn,
    username,
    email: String(e.mail ?? ''),
    fullName: String(e.displayName || e.cn || username),
    barred: (uac & 0x2) !== 0 || (lockout !== '' && lockout !== '0'),
    memberOf: ([] as unknown[]).concat(e.memberOf ?? []).map(String),
  };
}

function guidOf(value: unknown): string {
  const buffer = Array.isArray(value) ? value[0] : value;
  return Buffer.isBuffer(buffer) ? buffer.toString('hex') : '';
}

function failure(error: unknown, target: ConnectorTarget, who: string): Error {
  if (error instanceof ConnectorError) return error;
  if (error instanceof InvalidCredentialsError) return new ConnectorError('auth_failed', `The directory bind as ${who} to ${where(target)} was refused: ${adFailure(error.message)?.why ?? 'wrong password'}`);
  const network = networkFailure(error, target);
  if (network) return network;
  return new ConnectorError('failed', `The directory on ${where(target)} failed: ${(error as Error)?.message ?? error}`);
}
