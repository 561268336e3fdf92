import { Injectable } from '@nestjs/common';
import { QueryResultRow } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditWriter } from '@app/audit';
import { CallerRow } from '@app/auth';
import { Keyring } from '@app/crypto';
import { AppError } from '@app/http';
import { pgPool, prepared, preparedIn } from '@app/persistence';
import { ACTOR_CALLER, ACTOR_CALLER_WITH_COLUMNS, ACTOR_SLOTS, decisionAuditCte, decisionCtes, TOKEN_CALLER, TOKEN_SLOTS, WriteSlots, writeSlots } from './account-gate.sql';
import { GateRefusal, Refusal, refusalError } from './refusals';
import { FILE_CONTEXT, PASSWORD_CONTEXT } from './secret-contexts';
import { ACCOUNT_USE_RULES, AccountUse } from './secret-use';
import {
  AdministratorCredential, administratorLocator, AdministratorUse, DESTINATION_COLUMNS, DESTINATION_TEXT, destinationOf, DestinationRow, notConfigured,
  SYSTEM_USE_SQL, systemDescription,
} from './administrator-use';
import { requireBoundDestination } from './destination-binding';
import type { Locator } from './locator';
import { resourceVisibleSql } from './visibility';

export type { Locator } from './locator';

/** One use of one account's secret, as a caller asks for it. */
export interface AccountAccess {
  use: AccountUse;
  resourceId: number;
  accountId: number;
  reason?: string;
  ticketId?: string;
}

/** A password an account held, sealed, with its fingerprint when one was kept. */
export interface HeldPassword {
  password: Buffer;
  fingerprint: Buffer | null;
}

/** The account a granted use acts on: the shape the password changer stores into. */
export interface GrantedAccount {
  id: number;
  name: string;
  password: Buffer;
  /** Keyring.fingerprint of the password, when known (see migration PasswordFingerprints). */
  password_fingerprint: Buffer | null;
  password_policy: string;
  resource_id: number;
  resource_name: string;
  org_id: number;
  /**
   * The newest previous passwords (sealed, newest first), read with a change's decision
   * after the lock: at most HISTORY_PREFETCH of them. Absent when not read.
   */
  history?: HeldPassword[];
}

/**
 * How many previous passwords a change's decision reads along (the built-in Strong
 * policy's reuse check needs 3 besides the current one): the check needs no query of its
 * own for the usual policies.
 */
export const HISTORY_PREFETCH = 3;


/**
 * A change's own writes, run in the decision's statement and only when the use is granted:
 * data-modifying CTEs over `granted` (the verdict's one row when granted, else none; its
 * `uid` and `username` name the caller), written for the statement's slots (the reason,
 * ticket, address and client, and the write's own parameters, `params` in order). The
 * caller's checks that need the granted row (a password policy) run after, in the same
 * transaction, and roll the writes back when they fail.
 */
export interface GrantedWrite {
  /** Distinguishes the prepared statement of each write shape. */
  key: string;
  ctes: (slots: WriteSlots) => string;
  params: unknown[];
}

/** A caller known by the token of the request, for a statement that authenticates as it decides. */
export interface TokenCall {
  tokenHash: Buffer;
  /** The roles that grant the use (the route's permission). */
  roles: string[];
  ip: string;
  client: string;
}

/** What changeAtOnceAsCaller found: the token's user (none: unknown token), whether SQL alone admits them, and whether the change was made. */
export interface ChangeAsCaller {
  caller?: CallerRow;
  fast: boolean;
  changed: boolean;
}

export interface StoredFile {
  fileName: string;
  contentType: string;
  content: Buffer;
}

// A download's audit row names the file it released, after the caller's description.
const FILE_DESCRIPTION = `$12::text || coalesce((SELECT sf.file_name FROM stored_files sf WHERE sf.id = v.locator), '')`;
// A use of an administrator credential names where it is sent.
const DESTINATION_DESCRIPTION = `left($12::text || coalesce('; to ' || (SELECT ${DESTINATION_TEXT} FROM resources rr WHERE rr.id = v.rid), ''), 2000)`;

interface DecisionRow {
  id: number | null;
  name: string | null;
  password: Buffer | null;
  password_fingerprint: Buffer | null;
  password_policy: string;
  rid: number;
  rname: string;
  org_id: number;
  locator: string | null;
  refusal: Refusal | null;
  /** A read of a two-account pair: the current member's name (its password is in `password`). */
  member_name: string | null;
  history?: Buffer[] | null;
  history_fingerprints?: (Buffer | null)[] | null;
}

/**
 * The one gate in front of every account secret. Whatever path releases a password or a
 * file, logs in somewhere with a stored password on the caller's behalf, or replaces a
 * password, asks here, with the same inputs the password read uses: organisation and
 * visibility, the share level the use needs (ACCOUNT_USE_RULES), access control and the
 * holder of the current check-out, the help-desk restriction, reason and ticket. The
 * decision is audited, grant or refusal, before the secret moves; the decision and its
 * audit row are one SQL statement (decisionCtes + decisionAuditCte), the same ones the
 * hot password read runs with its token look-up.
 */
@Injectable()
export class AccountSecretGate {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
  ) {}

  /**
   * Decides and audits in one committed statement, then opens the password: for reads
   * and for uses on the caller's behalf (the audit row is durable before the password
   * goes anywhere). Refusals throw, already audited.
   */
  async openPassword(actor: Actor, access: AccountAccess, description = ''): Promise<{ password: string; account: GrantedAccount; memberName?: string }> {
    const row = await this.decide(actor, access, undefined, description);
    return { password: await this.open(row.password!), account: granted(row), ...(row.member_name ? { memberName: row.member_name } : {}) };
  }

  /**
   * The one decision before a resource's administrator credential (the account named by
   * resources.remote_account_id) is used to log in on someone's behalf: every remote
   * operation (remote password change, reset after check-in, every connector) asks here and
   * connects only to the destination this returns, which was read in the deciding statement.
   *
   * - A user (`actor`): the gate's 'use' decision on the administrator account, exactly as on
   *   any account (organisation and visibility, modify access to it, access control and the
   *   holder of its check-out, the help-desk restriction, reason and ticket); a refusal is
   *   `Failed` naming why and audited as `Password Use Denied`.
   * - The server itself (`actor` null: a reset after check-in, a scheduled rotation): no user
   *   test applies; the row names the system actor and `use.startedBy`.
   *
   * Either way `Password Used` (naming the destination) is committed before this returns,
   * so before any connection. Throws Unavailable when the resource names no administrator.
   */
  async openAdministrator(actor: Actor | null, use: AdministratorUse): Promise<AdministratorCredential> {
    if (!Number.isSafeInteger(use.resourceId)) throw new Error('A resource id must be an integer');
    if (!actor) {
      // Nothing of the server's own goes to a destination its password was not bound to.
      const [admin] = await this.dataSource.query('SELECT remote_account_id FROM resources WHERE id = $1', [use.resourceId]);
      if (admin?.remote_account_id) await requireBoundDestination(this.dataSource, this.audit, admin.remote_account_id, null, systemDescription(use));
      const [row] = await this.dataSource.query(SYSTEM_USE_SQL, [use.resourceId, systemDescription(use)]);
      if (!row) {
        const [resource] = await this.dataSource.query('SELECT name FROM resources WHERE id = $1', [use.resourceId]);
        throw resource ? notConfigured(resource.name) : AppError.notFound('No such resource found');
      }
      if (row.logged !== 1) throw new Error('The use of an administrator credential was not audited');
      return { account: { id: row.id, name: row.name }, password: await this.open(row.password), destination: destinationOf(row) };
    }
    // Which account is the administrator is no secret to those who see the resource; the
    // decision itself checks again that it still is (the locator), in its own snapshot.
    const [resource] = await this.dataSource.query(
      `SELECT r.name, r.remote_account_id, ${resourceVisibleSql('r', '$1', '$2', '$3')} AS visible FROM resources r WHERE r.id = $4 AND r.org_id = $1`,
      [actor.orgId, actor.id, actor.isSuperAdmin, use.resourceId],
    );
    if (resource?.visible && !resource.remote_account_id) throw notConfigured(resource.name);
    const access: AccountAccess = { use: 'use', resourceId: use.resourceId, accountId: resource?.remote_account_id ?? 0, reason: use.reason, ticketId: use.ticketId };
    const row = await this.decide(actor, access, administratorLocator(resource?.name ?? ''), use.description, true);
    await requireBoundDestination(this.dataSource, this.audit, row.id!, actor, use.description);
    return { account: { id: row.id!, name: row.name! }, password: await this.open(row.password!), destination: destinationOf(row as DecisionRow & DestinationRow) };
  }

  /**
   * The use decision on an account without opening its password: for a change that decides
   * where the server will send it later (a new destination or administrator). Audited like
   * any use (`Password Used` naming `description`); a refusal throws, audited.
   */
  async approveUse(actor: Actor, access: AccountAccess, description: string): Promise<void> {
    await this.decide(actor, access, undefined, description);
  }

  /**
   * Inside the caller's transaction, for a change of a managed resource's destination (EDIT
   * RESOURCE): the 'redirect' decision on the administrator account and the 'use' decision on
   * every other account, whose passwords the server would send there from now on. A refusal
   * throws (naming the account), audited once rolled back. A super administrator needs only
   * the administrator's decision; the bindings that move are audited in their name. Null when
   * the resource has no administrator: then no password of it is sent anywhere.
   */
  async authorizeDestinationChange(m: EntityManager, actor: Actor, resourceId: number, opts: { reason?: string; ticketId?: string } = {}): Promise<{ id: number; name: string } | null> {
    const admin = await this.authorizeRedirect(m, actor, resourceId, opts);
    // A super administrator passes for the other accounts; the bindings that move are audited in their name.
    if (!admin || actor.isSuperAdmin) return admin;
    const others: { id: number }[] = await m.query('SELECT id FROM accounts WHERE resource_id = $1 AND id <> $2 ORDER BY id', [resourceId, admin.id]);
    for (const { id } of others) await this.authorizeChange(m, actor, { use: 'use', resourceId, accountId: id, ...opts });
    return admin;
  }

  /** Decides and audits a download of a stored file, then opens it. */
  async openFile(actor: Actor, access: AccountAccess, locator: Locator, description: string): Promise<StoredFile> {
    const row = await this.decide(actor, access, locator, description);
    const [file] = await this.dataSource.query('SELECT file_name, content_type, content FROM stored_files WHERE id = $1', [row.locator]);
    return { fileName: file.file_name, contentType: file.content_type, content: await this.keyring.open(file.content, FILE_CONTEXT) };
  }

  /**
   * Inside the caller's transaction: locks the account and decides a change. The grant is
   * audited by the change's own row in the same transaction; a refusal throws a
   * GateRefusal, audited by `transaction` once the transaction has rolled back. `write`,
   * when given, is the change itself, made by the deciding statement when granted.
   */
  async authorizeChange(m: EntityManager, actor: Actor, access: AccountAccess, write?: GrantedWrite): Promise<GrantedAccount> {
    await preparedIn(m, 'gate_lock_account', LOCK_ACCOUNT, [access.accountId, access.resourceId]);
    // A new statement, so a new snapshot: it sees what a writer that held the lock before us committed.
    const { name, text, values } = changeStatement(actor, access, write);
    const [row] = await preparedIn<DecisionRow>(m, name, text, values);
    return verdictOf(row, access);
  }

  /**
   * A whole change of one account in a transaction of its own, in three round trips:
   * BEGIN with the lock, the decision that makes the change when granted (`write`), and
   * COMMIT after `check` has passed on the granted account (a failed check rolls the
   * change back). The same statements and order as `transaction` + `authorizeChange`;
   * refusals are audited after the rollback the same way.
   */
  async change(actor: Actor, access: AccountAccess, write: GrantedWrite, check: (account: GrantedAccount, sql: SqlRunner) => Promise<void>): Promise<void> {
    const { accountId, resourceId } = access;
    // Inlined into the one simple-protocol message that also opens the transaction: ids only, checked here.
    if (!Number.isSafeInteger(accountId) || !Number.isSafeInteger(resourceId)) throw new Error('Account and resource ids must be integers');
    const client = await pgPool(this.dataSource).connect();
    let broken: Error | undefined;
    try {
      // The lock is prepared once per connection (SQL PREPARE, in the same message the first
      // time): not parsed and planned again on every change.
      const prepare = lockPrepared.has(client) ? '' : `PREPARE gate_lock_account_sql(int, int) AS ${LOCK_ACCOUNT}; `;
      await client.query(`${prepare}BEGIN; EXECUTE gate_lock_account_sql(${accountId}, ${resourceId})`).catch((error: Error) => {
        // Which of its statements took is unknown (a lock timeout, a lost statement): the
        // connection goes, its prepared statement with it, and the next one starts clean.
        broken = error;
        lockPrepared.delete(client);
        throw error;
      });
      lockPrepared.add(client);
      const sql: SqlRunner = async (name, text, values) => (await client.query({ name, text, values })).rows;
      const { name, text, values } = changeStatement(actor, access, write);
      const [row] = await sql<DecisionRow>(name, text, values);
      await check(verdictOf(row, access), sql);
      await client.query('COMMIT');
    } catch (error) {
      if (!broken) await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      if (error instanceof GateRefusal) await this.auditRefusal(actor, error);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * A change decided and made in one autocommitted statement: no BEGIN, lock or COMMIT of
   * its own. The quick decision (ownership, or a share at the use's level, and no access
   * control: a grant of the full decision, see decisionCtes) and, when it grants, `write`
   * over `granted`. The write checks what it needs itself and must update the account only
   * where its row is still the version decided on (`a.xmin = g.version`): an UPDATE that
   * waited on a concurrent writer then finds a newer version and changes nothing. `write`
   * names the rows it changed in a CTE `changed`.
   *
   * True when the account was changed (with its audit row, in the same statement). False
   * when nothing was written, for whatever reason (a refusal, access control, a check of the
   * write, a concurrent change): nothing was audited either, and the caller takes `change`,
   * which locks, decides in full, says why and audits.
   */
  async changeAtOnce(actor: Actor, access: AccountAccess, write: GrantedWrite): Promise<boolean> {
    const name = `gate_at_once_${access.use}_${write.key}`;
    let text = atOnceTexts.get(name);
    if (!text) {
      // Built once per statement name (a write's key names its shape): this is the change's hot path.
      text = `WITH ${ACTOR_CALLER_WITH_COLUMNS}, ${decisionCtes(ACCOUNT_USE_RULES[access.use], ACTOR_SLOTS, undefined, { quick: true, callerColumns: true })},
       granted AS (SELECT * FROM verdict WHERE refusal IS NULL), ${write.ctes(writeSlots(ACTOR_SLOTS, 11))}
       SELECT (SELECT count(*) FROM changed)::int AS changed`;
      atOnceTexts.set(name, text);
    }
    const [row] = await prepared<{ changed: number }>(pgPool(this.dataSource), name, text, [...actorParams(actor, access, true), ...write.params]);
    return row.changed === 1;
  }

  /**
   * changeAtOnce for a caller known only by the request's token: the look-up joins the
   * statement (TOKEN_CALLER), as the password read's does, so a common change is one round
   * trip. The write is made only for a caller SQL alone admits (`fast`) and the quick
   * decision grants. Otherwise nothing is written or audited, and the caller admits the
   * token's user through the Authenticator (which refuses and audits as for any request)
   * and changes the ordinary way.
   */
  async changeAtOnceAsCaller(call: TokenCall, access: AccountAccess, write: GrantedWrite): Promise<ChangeAsCaller> {
    const name = `gate_at_once_as_caller_${access.use}_${write.key}`;
    let text = atOnceTexts.get(name);
    if (!text) {
      text = `WITH ${TOKEN_CALLER}, ${decisionCtes(ACCOUNT_USE_RULES[access.use], TOKEN_SLOTS, undefined, { quick: true, callerColumns: true, admitted: 'c.fast' })},
       granted AS (SELECT * FROM verdict WHERE refusal IS NULL), ${write.ctes(writeSlots(TOKEN_SLOTS, 8))}
       SELECT c.id, c.org_id, c.org_name, c.username, c.role, c.is_super_admin, c.locked, c.allowed_hosts, c.expired, c.fast,
              (SELECT count(*) FROM changed)::int AS changed
       FROM caller c`;
      atOnceTexts.set(name, text);
    }
    const [row] = await prepared<CallerRow & { fast: boolean; changed: number }>(pgPool(this.dataSource), name, text, [
      call.tokenHash,
      call.roles,
      access.resourceId,
      access.accountId,
      call.ip,
      call.client.slice(0, 200),
      (access.reason ?? '').slice(0, 1000),
      (access.ticketId ?? '').slice(0, 200),
      ...write.params,
    ]);
    if (!row) return { fast: false, changed: false };
    const { fast, changed, ...caller } = row;
    return { caller, fast, changed: changed === 1 };
  }

  /**
   * Inside the caller's transaction (see `transaction`), with the resource row locked: decides
   * a change of an attribute that decides where the resource's stored credentials are sent
   * (DNS name, the name when there is none, port, type). When the resource names an
   * administrator account, that is the 'redirect' use of it (full access to the resource,
   * access control and check-out holder, help-desk rule, reason and ticket); a refusal throws,
   * audited as `Password Use Denied` once rolled back. Without one, nothing is sent there on
   * anyone's behalf and the caller's own full-access check is the decision. Returns the
   * administrator account decided on, or null.
   */
  async authorizeRedirect(
    m: EntityManager,
    actor: Actor,
    resourceId: number,
    opts: { reason?: string; ticketId?: string } = {},
  ): Promise<{ id: number; name: string } | null> {
    const [resource] = await m.query('SELECT remote_account_id FROM resources WHERE id = $1 AND org_id = $2', [resourceId, actor.orgId]);
    if (!resource?.remote_account_id) return null;
    const account = await this.authorizeChange(m, actor, { use: 'redirect', resourceId, accountId: resource.remote_account_id, ...opts });
    return { id: account.id, name: account.name };
  }

  /**
   * The server's own change (the reset after a check-in): no caller to check, the
   * check-in that triggers it was decided by the workflow. Locks and returns the account.
   */
  async authorizeServerChange(m: EntityManager, accountId: number): Promise<GrantedAccount> {
    const [account] = await m.query(
      `SELECT a.id, a.name, a.password, a.password_fingerprint, a.password_policy, r.id AS resource_id, r.name AS resource_name, r.org_id
       FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE a.id = $1 FOR UPDATE OF a`,
      [accountId],
    );
    if (!account) throw refusalError('NOT_FOUND', ACCOUNT_USE_RULES.change);
    return account;
  }

  /** A transaction whose gate refusals are audited after it rolls back. */
  async transaction<T>(actor: Actor, work: (m: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      if (error instanceof GateRefusal) await this.auditRefusal(actor, error);
      throw error;
    }
  }

  /** Audits a refusal thrown inside a transaction the caller ran itself, once it has rolled back. */
  async auditRefusal(actor: Actor, error: GateRefusal): Promise<void> {
    const row = error.auditRow;
    await this.audit.record({
      category: 'Resource',
      operation: row.operation,
      outcome: 'Failed',
      actor,
      resourceId: row.resourceId,
      resourceName: row.resourceName,
      accountId: row.accountId,
      accountName: row.accountName,
      reason: row.reason,
      ticketId: row.ticketId,
      description: `refused: ${row.refusal}`,
    });
  }

  /** Opens a password the gate has granted (the caller's statement already audited it). */
  async open(blob: Buffer): Promise<string> {
    return (this.keyring.openLoaded(blob, PASSWORD_CONTEXT) ?? (await this.keyring.open(blob, PASSWORD_CONTEXT))).toString('utf8');
  }

  /** `destination`: the use sends the account's password to its resource's host, named in the row and selected along. */
  private async decide(actor: Actor, access: AccountAccess, locator: Locator | undefined, description: string, destination = false): Promise<DecisionRow> {
    const rule = ACCOUNT_USE_RULES[access.use];
    const described = destination ? DESTINATION_DESCRIPTION : locator ? FILE_DESCRIPTION : '$12::text';
    const sql = `WITH ${ACTOR_CALLER}, ${decisionCtes(rule, ACTOR_SLOTS, locator?.sql)},
      ${decisionAuditCte(rule, ACTOR_SLOTS, described)}
      SELECT v.*, (SELECT count(*) FROM logged)::int AS logged${destination ? `, ${DESTINATION_COLUMNS}` : ''}
      FROM caller c LEFT JOIN verdict v ON true${destination ? ' LEFT JOIN resources rr ON rr.id = v.rid' : ''}`;
    const rows = await prepared<DecisionRow & { logged: number }>(
      pgPool(this.dataSource),
      `gate_${access.use}${locator ? `_${locator.key}` : ''}${destination ? '_destination' : ''}`,
      sql,
      [...actorParams(actor, access, true), description.slice(0, 2000), ...(locator?.params ?? [])],
    );
    const row = rows[0];
    if (row.logged !== 1) throw new Error('The gate decision was not audited');
    const refusal: Refusal | null = row.id === null ? 'NOT_FOUND' : row.refusal;
    if (refusal) throw refusal === 'MISSING' && locator?.missing ? AppError.notFound(locator.missing) : refusalError(refusal, rule, row.name ?? '', row.rname ?? '');
    return row;
  }
}

const LOCK_ACCOUNT = 'SELECT 1 FROM accounts WHERE id = $1 AND resource_id = $2 FOR UPDATE';
/** Pool connections on which `change` has prepared its lock (a connection's statements live and die with it). */
const lockPrepared = new WeakSet<object>();
/** changeAtOnce's statement texts, by statement name. */
const atOnceTexts = new Map<string, string>();

/** Runs a named statement on the connection of a transaction in progress. */
export type SqlRunner = <T extends QueryResultRow>(name: string, text: string, values: unknown[]) => Promise<T[]>;

/** A change's deciding statement (after the lock): the verdict, the newest history, and the change itself when given. */
function changeStatement(actor: Actor, access: AccountAccess, write?: GrantedWrite): { name: string; text: string; values: unknown[] } {
  const rule = ACCOUNT_USE_RULES[access.use];
  return {
    name: `gate_change_${access.use}${write ? `_${write.key}` : ''}`,
    text: `WITH ${ACTOR_CALLER}, ${decisionCtes(rule, ACTOR_SLOTS)}${
      write ? `, granted AS (SELECT * FROM verdict WHERE id IS NOT NULL AND refusal IS NULL), ${write.ctes(writeSlots(ACTOR_SLOTS, 11))}` : ''
    }
     SELECT v.*, h.history, h.history_fingerprints
     FROM caller c LEFT JOIN verdict v ON true
     LEFT JOIN LATERAL (
       SELECT coalesce(array_agg(x.password ORDER BY x.id DESC), '{}') AS history,
              coalesce(array_agg(x.fingerprint ORDER BY x.id DESC), '{}') AS history_fingerprints
       FROM (SELECT h.id, h.password, h.fingerprint FROM password_history h WHERE h.account_id = v.id ORDER BY h.id DESC LIMIT ${HISTORY_PREFETCH}) x
     ) h ON v.id IS NOT NULL AND v.refusal IS NULL`,
    values: write ? [...actorParams(actor, access, true), ...write.params] : actorParams(actor, access),
  };
}

/** The granted account, or the refusal to throw (audited by the caller once rolled back). */
function verdictOf(row: DecisionRow, access: AccountAccess): GrantedAccount {
  const rule = ACCOUNT_USE_RULES[access.use];
  const refusal: Refusal | null = row.id === null ? 'NOT_FOUND' : row.refusal;
  if (!refusal) return granted(row);
  throw new GateRefusal(refusalError(refusal, rule, row.name ?? '', row.rname ?? ''), {
    operation: rule.refused,
    resourceId: row.id === null ? null : row.rid,
    resourceName: row.rname ?? '',
    accountId: row.id,
    accountName: row.name ?? '',
    refusal,
    reason: access.reason ?? '',
    ticketId: access.ticketId ?? '',
  });
}

/** The parameters of a decision ($1–$9); `audited` adds those of its audit row ($10, $11). */
function actorParams(actor: Actor, access: AccountAccess, audited = false): unknown[] {
  const params: unknown[] = [
    actor.orgId,
    actor.id,
    actor.isSuperAdmin,
    actor.username,
    actor.role,
    access.resourceId,
    access.accountId,
    (access.reason ?? '').slice(0, 1000),
    (access.ticketId ?? '').slice(0, 200),
  ];
  return audited ? [...params, actor.ip, actor.client.slice(0, 200)] : params;
}

function granted(row: DecisionRow): GrantedAccount {
  return {
    id: row.id!,
    name: row.name!,
    password: row.password!,
    password_fingerprint: row.password_fingerprint,
    password_policy: row.password_policy,
    resource_id: row.rid,
    resource_name: row.rname,
    org_id: row.org_id,
    ...(row.history ? { history: row.history.map((password, i) => ({ password, fingerprint: row.history_fingerprints![i] })) } : {}),
  };
}
