import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Actor, AuditOperation, auditInsertFrom, auditValues } from '@app/audit';
import { actorOf, AuthedRequest, Authenticator, orgHeader, Permission, rolesWith } from '@app/auth';
import { BUILTIN_POLICIES, complianceProblems, hashToken, Keyring, PasswordPolicy, reuseProblems } from '@app/crypto';
import { AccountAccess, AccountSecretGate, GrantedAccount, GrantedWrite, HeldPassword, HISTORY_PREFETCH, PASSWORD_CONTEXT, SqlRunner, WriteSlots } from '@app/gate';
import { AppError, clientIp, extractToken } from '@app/http';
import { preparedIn } from '@app/persistence';
import { PoliciesService } from '../policies/policies.service';
import { verdictOf } from './compliance';

// The old password (with its fingerprint) to the history, the new one in place with its
// compliance verdict ($5 policy, $6 problems), and the audit row. The caller holds the
// account's lock: its row is read here as it stands.
const STORE = `WITH kept AS (INSERT INTO password_history (account_id, password, fingerprint, changed_by)
    SELECT a.id, a.password, a.password_fingerprint, $2 FROM accounts a WHERE a.id = $1),
  changed AS (UPDATE accounts SET password = $3, password_fingerprint = $4, password_changed_at = now(), updated_at = now(),
    compliance_policy = $5, compliance_problems = $6 WHERE id = $1)
  ${auditInsertFrom(7)}`;

// Fingerprints of passwords the locked way has opened ($2 sealed values, $3 fingerprints),
// on the account's history rows and current password that hold them. A sealed value is
// unique (each sealing draws a new IV), so it finds its row wherever the change put it.
const KEEP_FINGERPRINTS = `WITH f AS (SELECT * FROM unnest($2::bytea[], $3::bytea[]) AS f(password, fingerprint)),
  history AS (UPDATE password_history h SET fingerprint = f.fingerprint FROM f WHERE h.account_id = $1 AND h.password = f.password)
  UPDATE accounts a SET password_fingerprint = f.fingerprint FROM f WHERE a.id = $1 AND a.password = f.password`;

// The audit row of a caller's change made by the gate's statement, over the granted row
// `g` that `from` names (g.uid and g.username name the caller), with the statement's slots
// for the reason, ticket, address and client.
function changeAuditSql(from: string, s: WriteSlots): string {
  return `INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, client,
      resource_id, resource_name, account_id, account_name, target, reason, ticket_id, request_id, description)
    SELECT g.org_id, 'Resource', '${AuditOperation.PasswordChanged}', 'Success', g.uid, g.username, ${s.ip}, ${s.client}, g.rid, g.rname, g.id, g.name, '', ${s.reason}, ${s.ticket}, NULL, ''
    FROM ${from}`;
}

// The same writes as STORE, made by the gate's statement over its `granted` row (the
// account locked before it): param 1 the new sealed password, 2 its fingerprint. The
// verdict is "compliant with the account's policy": checkWith, which runs after in the same
// transaction, rolls the change back otherwise.
const STORE_GRANTED = (s: WriteSlots) => `kept AS (INSERT INTO password_history (account_id, password, fingerprint, changed_by)
    SELECT g.id, g.password, g.password_fingerprint, g.uid FROM granted g),
  changed AS (UPDATE accounts a SET password = ${s.param(1)}, password_fingerprint = ${s.param(2)}::bytea, password_changed_at = now(), updated_at = now(),
    compliance_policy = g.password_policy, compliance_problems = ''
    FROM granted g WHERE a.id = g.id),
  logged AS (${changeAuditSql('granted g', s)})`;

// The same writes in one statement with no lock before it (AccountSecretGate.changeAtOnce),
// and only when checkWith would pass: the account's policy is a built-in one the new
// password keeps (param 3, lower-case names, with param 4 their reuse depths, as
// complianceProblems found), and the new password's fingerprint (param 2) is none of the
// last `depth` passwords' (the current one and the newest history entries), all
// fingerprinted under the same data key version. Otherwise, or when the row is no longer
// the version decided on, it writes nothing and the change takes the locked path, whose
// check says why. What it writes keeps the policy, so its verdict is "compliant".
const STORE_AT_ONCE = (s: WriteSlots) => {
  const [sealed, fingerprint, names, depths] = [1, 2, 3, 4].map(s.param);
  return `checked AS (
    SELECT g.* FROM granted g
    CROSS JOIN LATERAL (SELECT (${depths}::int[])[array_position(${names}::text[], lower(btrim(g.password_policy)))] AS depth) p
    WHERE p.depth = 0 OR (p.depth > 0 AND (
      SELECT count(*) = count(f.fp) AND bool_and(substring(f.fp FROM 1 FOR 4) = substring(${fingerprint}::bytea FROM 1 FOR 4)) AND NOT bool_or(f.fp = ${fingerprint}::bytea)
      FROM unnest(ARRAY[g.password_fingerprint] || ARRAY(
        SELECT h.fingerprint FROM password_history h WHERE h.account_id = g.id ORDER BY h.id DESC LIMIT p.depth - 1)) f(fp)))),
  changed AS (UPDATE accounts a SET password = ${sealed}, password_fingerprint = ${fingerprint}::bytea, password_changed_at = now(), updated_at = now(),
    compliance_policy = g.password_policy, compliance_problems = ''
    FROM checked g WHERE a.id = g.id AND a.xmin = g.version RETURNING a.id),
  kept AS (INSERT INTO password_history (account_id, password, fingerprint, changed_by)
    SELECT g.id, g.password, g.password_fingerprint, g.uid FROM checked g JOIN changed c ON c.id = g.id),
  logged AS (${changeAuditSql('checked g JOIN changed c ON c.id = g.id', s)})`;
};

const CHANGE_ROLES = rolesWith(Permission.PasswordChange);

/** An account locked for a change, as the gate grants it. */
export type LockedAccount = GrantedAccount;

/**
 * Replaces an account's password inside the caller's transaction: the account row is
 * locked, the old password goes to the sealed history (never lost), the new one must
 * satisfy the policy and not reuse recent ones, and the change is audited.
 */
@Injectable()
export class PasswordChanger {
  constructor(
    private readonly gate: AccountSecretGate,
    private readonly keyring: Keyring,
    private readonly policies: PoliciesService,
    private readonly authenticator: Authenticator,
  ) {}

  /** Checks the policy and history; throws a Failed answer that says why. */
  check(m: EntityManager, account: LockedAccount, newPassword: string): Promise<PasswordPolicy> {
    return this.checkWith((name, text, values) => preparedIn(m, name, text, values), account, newPassword);
  }

  /** The same check, its history read (when the gate's is not enough) through `sql`. */
  private async checkWith(sql: SqlRunner, account: LockedAccount, newPassword: string): Promise<PasswordPolicy> {
    const policy = await this.policies.require(account.org_id, account.password_policy, 'ACCOUNTPASSWORDPOLICY');
    const problems = complianceProblems(policy, newPassword);
    if (problems.length) {
      throw AppError.invalid(`The new password does not comply with the ${policy.name} policy: ${problems.join(', ')}`);
    }
    if (policy.noReuseLast > 0) {
      const history = await this.history(sql, account, Math.max(policy.noReuseLast - 1, 0));
      const recent = [{ password: account.password, fingerprint: account.password_fingerprint }, ...history];
      const texts = await Promise.all(recent.map(async (held) => (await this.keyring.open(held.password, PASSWORD_CONTEXT)).toString('utf8')));
      const reuse = reuseProblems(policy, newPassword, texts);
      if (reuse.length) throw AppError.invalid(reuse.join(', '));
      await this.keepFingerprints(sql, account.id, recent, texts);
    }
    return policy;
  }

  /** The newest `depth` previous passwords: those the gate read along when they are enough, else a query. */
  private async history(sql: SqlRunner, account: LockedAccount, depth: number): Promise<HeldPassword[]> {
    const read = account.history;
    if (read && (read.length >= depth || read.length < HISTORY_PREFETCH)) return read.slice(0, depth);
    return sql<HeldPassword>(
      'password_history_recent',
      'SELECT password, fingerprint FROM password_history WHERE account_id = $1 ORDER BY id DESC LIMIT $2',
      [account.id, depth],
    );
  }

  /**
   * Writes the fingerprints of the passwords the check has just opened where they are
   * missing or made under another data key (accounts from before fingerprints, a key
   * rotation), so that the account's next change can take one statement.
   */
  private async keepFingerprints(sql: SqlRunner, accountId: number, recent: HeldPassword[], texts: string[]): Promise<void> {
    const fresh = texts.map((text) => this.keyring.fingerprint(text, PASSWORD_CONTEXT, accountId));
    const stale = recent.flatMap((held, i) => (held.fingerprint?.equals(fresh[i]) ? [] : [i]));
    if (stale.length === 0) return;
    await sql('password_fingerprints_keep', KEEP_FINGERPRINTS, [accountId, stale.map((i) => recent[i].password), stale.map((i) => fresh[i])]);
  }

  /** Stores the new password, keeping the old one in history, with its verdict and audit row: one statement. */
  async store(
    m: EntityManager,
    actor: Actor | null,
    account: LockedAccount,
    newPassword: string,
    audit: { reason?: string; ticketId?: string; requestId?: number; description?: string; operation?: string } = {},
  ): Promise<void> {
    const { operation, ...described } = audit;
    const event = auditValues({
      category: 'Resource',
      operation: operation ?? AuditOperation.PasswordChanged,
      actor,
      orgId: account.org_id,
      resourceId: account.resource_id,
      resourceName: account.resource_name,
      accountId: account.id,
      accountName: account.name,
      ...described,
    });
    const verdict = verdictOf(await this.policies.find(account.org_id, account.password_policy), account.password_policy, newPassword);
    await preparedIn(m, 'password_store', STORE, [
      account.id,
      actor?.id ?? null,
      this.keyring.seal(newPassword, PASSWORD_CONTEXT),
      this.keyring.fingerprint(newPassword, PASSWORD_CONTEXT, account.id),
      verdict.policy,
      verdict.problems,
      ...event,
    ]);
  }

  /**
   * A local change (RESETTYPE=LOCAL). Usually one statement (AccountSecretGate.changeAtOnce
   * with STORE_AT_ONCE): quick decision, policy and reuse checks, change and audit row.
   * Whatever that statement does not write (a refusal, access control, a custom policy, a
   * failed check, a concurrent change, passwords without comparable fingerprints) goes the
   * locked way, in one transaction (AccountSecretGate.change): the gate's full decision also
   * stores the change when granted (STORE_GRANTED), then checkWith runs on what it returned
   * (and keeps the fingerprints it found missing); a failed check rolls the change back with
   * the rest.
   */
  async changeLocal(actor: Actor, resourceId: number, accountId: number, newPassword: string, reason = '', ticketId = ''): Promise<void> {
    const access = { use: 'change' as const, resourceId, accountId, reason, ticketId };
    const { atOnce, locked } = this.writes(accountId, newPassword);
    if (await this.gate.changeAtOnce(actor, access, atOnce)) return;
    await this.changeLocked(actor, access, locked, newPassword);
  }

  /**
   * changeLocal for the route that authenticates in its statement (the lean PUT .../password):
   * the token's look-up joins the change (AccountSecretGate.changeAtOnceAsCaller), so a common
   * change is one round trip. A caller SQL alone does not admit is admitted by the
   * Authenticator (refused and audited as on every route) and changes the ordinary way; an
   * admitted caller whose change the one statement did not make takes the locked way.
   */
  async changeAsCaller(req: AuthedRequest, resourceId: number, accountId: number, newPassword: string, reason = '', ticketId = ''): Promise<void> {
    const token = extractToken(req);
    if (!token) return this.authenticator.refuseUnknown(req);
    // orgName may move the caller to another organisation (or be refused): only the Authenticator decides that.
    if (orgHeader(req)?.trim()) {
      req.actor = await this.authenticator.authenticate(req, Permission.PasswordChange);
      return this.changeLocal(req.actor, resourceId, accountId, newPassword, reason, ticketId);
    }
    const access = { use: 'change' as const, resourceId, accountId, reason, ticketId };
    const { atOnce, locked } = this.writes(accountId, newPassword);
    const call = { tokenHash: hashToken(token), roles: CHANGE_ROLES, ip: clientIp(req), client: String(req.headers['user-agent'] ?? '') };
    const { caller, fast, changed } = await this.gate.changeAtOnceAsCaller(call, access, atOnce);
    if (!caller) return this.authenticator.refuseUnknown(req);
    if (!fast) {
      req.actor = await this.authenticator.admit(caller, req, Permission.PasswordChange);
      return this.changeLocal(req.actor, resourceId, accountId, newPassword, reason, ticketId);
    }
    req.actor = actorOf(caller, req);
    if (!changed) await this.changeLocked(req.actor, access, locked, newPassword);
  }

  /** The two forms of a local change's writes: in one statement (after the quick decision), or after the lock and the full decision. */
  private writes(accountId: number, newPassword: string): { atOnce: GrantedWrite; locked: GrantedWrite } {
    const sealed = this.keyring.seal(newPassword, PASSWORD_CONTEXT);
    const fingerprint = this.keyring.fingerprint(newPassword, PASSWORD_CONTEXT, accountId);
    const kept = BUILTIN_POLICIES.filter((policy) => complianceProblems(policy, newPassword).length === 0);
    return {
      atOnce: { key: 'store', ctes: STORE_AT_ONCE, params: [sealed, fingerprint, kept.map((p) => p.name.toLowerCase()), kept.map((p) => p.noReuseLast)] },
      locked: { key: 'store', ctes: STORE_GRANTED, params: [sealed, fingerprint] },
    };
  }

  /** The locked way: the full decision stores the change when granted, checkWith then passes or rolls it back. */
  private changeLocked(actor: Actor, access: AccountAccess, write: GrantedWrite, newPassword: string): Promise<void> {
    return this.gate.change(actor, access, write, async (account, sql) => {
      await this.checkWith(sql, account, newPassword);
    });
  }
}
