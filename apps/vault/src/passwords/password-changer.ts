import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Actor, AuditOperation, auditInsertFrom, auditValues } from '@app/audit';
import { complianceProblems, Keyring, PasswordPolicy, reuseProblems } from '@app/crypto';
import { AccountSecretGate, GrantedAccount, HISTORY_PREFETCH, PASSWORD_CONTEXT, SqlRunner } from '@app/gate';
import { AppError } from '@app/http';
import { preparedIn } from '@app/persistence';
import { PoliciesService } from '../policies/policies.service';

// The old password to the history, the new one in place, and the audit row.
const STORE = `WITH kept AS (INSERT INTO password_history (account_id, password, changed_by) VALUES ($1, $2, $3)),
  changed AS (UPDATE accounts SET password = $4, password_changed_at = now(), updated_at = now() WHERE id = $1)
  ${auditInsertFrom(5)}`;

// The same writes as STORE, made by the gate's statement over its `granted` row: $2 and $4
// are the caller's id and name, $8 and $9 reason and ticket, $10 and $11 its address and
// client (ACTOR_SLOTS), $12 the new sealed password.
const STORE_GRANTED = `kept AS (INSERT INTO password_history (account_id, password, changed_by) SELECT g.id, g.password, $2 FROM granted g),
  changed AS (UPDATE accounts a SET password = $12, password_changed_at = now(), updated_at = now() FROM granted g WHERE a.id = g.id),
  logged AS (INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, client,
      resource_id, resource_name, account_id, account_name, target, reason, ticket_id, request_id, description)
    SELECT g.org_id, 'Resource', '${AuditOperation.PasswordChanged}', 'Success', $2, $4, $10, $11, g.rid, g.rname, g.id, g.name, '', $8, $9, NULL, ''
    FROM granted g)`;

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
      const recent = [account.password, ...history];
      const texts = await Promise.all(recent.map(async (blob) => (await this.keyring.open(blob, PASSWORD_CONTEXT)).toString('utf8')));
      const reuse = reuseProblems(policy, newPassword, texts);
      if (reuse.length) throw AppError.invalid(reuse.join(', '));
    }
    return policy;
  }

  /** The newest `depth` previous passwords: those the gate read along when they are enough, else a query. */
  private async history(sql: SqlRunner, account: LockedAccount, depth: number): Promise<Buffer[]> {
    const read = account.history;
    if (read && (read.length >= depth || read.length < HISTORY_PREFETCH)) return read.slice(0, depth);
    const rows = await sql<{ password: Buffer }>(
      'password_history_recent',
      'SELECT password FROM password_history WHERE account_id = $1 ORDER BY id DESC LIMIT $2',
      [account.id, depth],
    );
    return rows.map((h) => h.password);
  }

  /** Stores the new password, keeping the old one in history, with its audit row: one statement. */
  async store(
    m: EntityManager,
    actor: Actor | null,
    account: LockedAccount,
    newPassword: string,
    audit: { reason?: string; ticketId?: string; requestId?: number; description?: string } = {},
  ): Promise<void> {
    const event = auditValues({
      category: 'Resource',
      operation: AuditOperation.PasswordChanged,
      actor,
      orgId: account.org_id,
      resourceId: account.resource_id,
      resourceName: account.resource_name,
      accountId: account.id,
      accountName: account.name,
      ...audit,
    });
    await preparedIn(m, 'password_store', STORE, [account.id, account.password, actor?.id ?? null, this.keyring.seal(newPassword, PASSWORD_CONTEXT), ...event]);
  }

  /**
   * A local change (RESETTYPE=LOCAL), in one transaction (AccountSecretGate.change): the
   * gate's deciding statement also stores the change when granted (STORE_GRANTED), then
   * the policy and history checks run on what it returned; a failed check rolls the change
   * back with the rest.
   */
  changeLocal(actor: Actor, resourceId: number, accountId: number, newPassword: string, reason = '', ticketId = '') {
    const write = { key: 'store', ctes: STORE_GRANTED, params: [this.keyring.seal(newPassword, PASSWORD_CONTEXT)] };
    return this.gate.change(actor, { use: 'change', resourceId, accountId, reason, ticketId }, write, async (account, sql) => {
      await this.checkWith(sql, account, newPassword);
    });
  }
}
