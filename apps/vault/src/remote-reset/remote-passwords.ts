import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { APP_CONFIG, AppConfig } from '@app/config';
import { ConnectorKind, connectorForType } from '@app/connectors';
import { DEFAULT_POLICY_NAME, findBuiltinPolicy, generatePassword, Keyring } from '@app/crypto';
import { AccountSecretGate, GateRefusal, GrantedAccount, requireBoundDestination } from '@app/gate';
import { AppError, ErrorCode } from '@app/http';
import { EntityManager } from 'typeorm';
import { PasswordChanger } from '../passwords/password-changer';
import { PoliciesService } from '../policies/policies.service';
import { ACCOUNT_PENDING_CONTEXT, REMOTE_LOCK_NAMESPACE, RemoteCaller, Settlement } from './remote-change';
import { certainlyUnchanged, connectorAppError, connectorOf, RemoteSettings, SETTINGS_SQL, targetOf } from './remote-target';
import { RotationEvents } from '../rotation/rotation-events';
import { SyncRecorder } from './sync-recorder';

const KIND_LABELS: Record<ConnectorKind, string> = { ssh: 'SSH', postgresql: 'PostgreSQL', mysql: 'MySQL', ldap: 'LDAP', ad: 'Active Directory' };

type Decide = (m: EntityManager) => Promise<GrantedAccount>;
type NewPassword = string | ((account: GrantedAccount) => Promise<string>);
interface StoreAudit {
  reason?: string;
  ticketId?: string;
  description: string;
  /** What started the change, for the rotation webhook's event. */
  trigger: string;
  /** The stored change's audit operation (default Password Changed). */
  operation?: string;
  /** A scheduled rotation's run: kept with the pending password, marked on the account when it commits, even by a settlement after a crash. */
  rotationRun?: number;
  /** More writes of the committing transaction, before it commits (a pair's switch), with the password stored. */
  onStored?: (m: EntityManager, password: string) => Promise<void>;
}

/** What a server-started change may add: see StoreAudit. */
export type ServerChangeOptions = { startedBy: string; description?: string } & Pick<StoreAudit, 'operation' | 'rotationRun' | 'onStored'>;

/**
 * Remote password changes for every connector kind, crash-safe. One change of one account:
 *   1. under a session advisory lock on the account (held by this process's connection, so
 *      it dies with the process), settle any pending change a crash left;
 *   2. decide (the gate), check the policy and history, and commit the new password sealed
 *      in accounts.pending_password, before the target is touched;
 *   3. the gate's use decision on the administrator credential (Password Used, committed),
 *      then the connector changes the password on the destination decided on;
 *   4. commit: the new password in place, the old one to history, the pending one cleared.
 * A failure the target certainly did not act on clears the pending password; any other
 * settles it at once by logging in (pending first, then current), or leaves it for the
 * settler (next start, next round, next verification). Nothing here decides access: the
 * gate does; nothing here knows a protocol: the connectors do.
 */
@Injectable()
export class RemotePasswords {
  private readonly logger = new Logger('RemotePasswords');
  /** Remote changes in flight per instance: each holds a pool connection for its lock and needs another now and then. */
  private readonly slots: Slots;

  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly changer: PasswordChanger,
    private readonly gate: AccountSecretGate,
    private readonly policies: PoliciesService,
    private readonly sync: SyncRecorder,
    private readonly events: RotationEvents,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.slots = new Slots(Math.max(1, Math.floor(config.dbPoolSize / 2)));
  }

  /** PUT .../password with RESETTYPE=REMOTE: the change decision on the account, then the administrator's use, the target, the vault. */
  async changeForCaller(actor: Actor, resourceId: number, accountId: number, newPassword: string, reason = '', ticketId = ''): Promise<void> {
    const access = { use: 'change' as const, resourceId, accountId, reason, ticketId };
    await this.failureAudited(actor, resourceId, accountId, () =>
      this.change({ actor, reason, ticketId }, resourceId, accountId, newPassword, (m) => this.gate.authorizeChange(m, actor, access), {
        reason,
        ticketId,
        description: 'Password changed on the target (remote reset)',
        trigger: `remote password change by ${actor.username}`,
      }),
    );
  }

  /**
   * The server's own change of one account (a scheduled rotation, a reset after check-in):
   * audited as the system actor naming `startedBy`. Throws a Failed AppError naming why
   * when the target refuses; then nothing in the vault has changed.
   */
  async changeForServer(accountId: number, newPassword: NewPassword, options: ServerChangeOptions): Promise<void> {
    const [row] = await this.dataSource.query('SELECT resource_id FROM accounts WHERE id = $1', [accountId]);
    if (!row) throw AppError.notFound('No such account found');
    await this.change({ actor: null, startedBy: options.startedBy }, row.resource_id, accountId, newPassword, (m) => this.gate.authorizeServerChange(m, accountId), {
      description: `${options.description ?? 'Password changed on the target (remote reset)'}; started by ${options.startedBy}`,
      trigger: options.startedBy,
      operation: options.operation,
      rotationRun: options.rotationRun,
      onStored: options.onStored,
    });
  }

  /** POST .../reconcile: a new password from the account's policy, set on the target by the administrator and stored. */
  async reconcile(actor: Actor, resourceId: number, accountId: number, reason = '', ticketId = ''): Promise<void> {
    const access = { use: 'reconcile' as const, resourceId, accountId, reason, ticketId };
    await this.failureAudited(actor, resourceId, accountId, () =>
      this.change({ actor, reason, ticketId }, resourceId, accountId, (account) => this.generate(account), (m) => this.gate.authorizeChange(m, actor, access), {
        reason,
        ticketId,
        description: 'Password reconciled: a new password set on the target and stored',
        trigger: `reconcile by ${actor.username}`,
      }),
    );
  }

  /**
   * A new password from the account's policy (the built-in default when it names none), shaped
   * by what the target's kind demands (Connector.passwordRules).
   */
  async generate(account: { org_id: number; password_policy: string; name: string; resource_id: number }): Promise<string> {
    const named = await this.policies.find(account.org_id, account.password_policy);
    const [resource] = await this.dataSource.query('SELECT type FROM resources WHERE id = $1', [account.resource_id]);
    const rules = connectorForType(resource?.type ?? '')?.passwordRules;
    let policy = named ?? findBuiltinPolicy(DEFAULT_POLICY_NAME)!;
    // The built-in policies are the default; an organisation's own policy is followed as written.
    if (rules && (!named || findBuiltinPolicy(named.name))) policy = { ...policy, minLength: Math.max(policy.minLength, rules.minLength), maxLength: Math.max(policy.maxLength, rules.minLength) };
    const holdsName = (password: string) => !!rules?.notContainingAccount && account.name.length >= 3 && password.toLowerCase().includes(account.name.toLowerCase());
    for (let tries = 0; tries < 100; tries++) {
      const password = generatePassword(policy);
      if (!holdsName(password)) return password;
    }
    throw AppError.invalid(`Password policy ${policy.name} keeps producing passwords that contain the account name ${account.name}`);
  }

  /**
   * Changes the password on the target as the resource's administrator (the gate decides
   * that use and audits it before connecting). Throws the connector's error as it came.
   */
  async changeOnTarget(caller: RemoteCaller, account: { id: number; name: string; resource_id: number }, newPassword: string): Promise<void> {
    // The new password goes where the account's password was bound, or nowhere.
    await requireBoundDestination(this.dataSource, this.audit, account.id, caller.actor, caller.startedBy ?? `a remote change by ${caller.actor?.username}`);
    const settings = await this.settingsOf(account.resource_id);
    const label = KIND_LABELS[connectorOf(settings.type, settings.resource_name).kind];
    const admin = await this.gate.openAdministrator(caller.actor, {
      resourceId: account.resource_id,
      reason: caller.reason,
      ticketId: caller.ticketId,
      startedBy: caller.startedBy,
      description: `${label} login to change the password of ${account.name}`,
    });
    const connector = connectorOf(admin.destination.type, settings.resource_name);
    const session = await connector.connect(targetOf(settings, connector, admin.destination), { username: admin.account.name, password: admin.password });
    try {
      await session.changePassword(account.name, newPassword);
    } finally {
      await session.close();
    }
  }

  /** The resource's connector settings; throws when there is no such resource. */
  async settingsOf(resourceId: number, runner?: QueryRunner): Promise<RemoteSettings> {
    const [settings] = await (runner ?? this.dataSource).query(`${SETTINGS_SQL} WHERE r.id = $1`, [resourceId]);
    if (!settings) throw AppError.notFound('No such resource found');
    return settings;
  }

  /** Refuses (without writing) when the account's destination is not the one its password was bound to. */
  async requireBound(accountId: number, startedBy: string): Promise<void> {
    await requireBoundDestination(this.dataSource, this.audit, accountId, null, startedBy, false);
  }

  /**
   * Settles a pending change of one account if nobody is working on it (its lock is free):
   * the next start, the periodic round and a verification call this.
   */
  async settle(accountId: number, startedBy: string): Promise<Settlement> {
    return this.withLock(accountId, false, (runner) => this.settleLocked(runner, accountId, startedBy));
  }

  /** Accounts with a pending change, oldest first (the settler's work list). */
  async pendingAccounts(limit = 100): Promise<number[]> {
    const rows = await this.dataSource.query('SELECT id FROM accounts WHERE pending_password IS NOT NULL ORDER BY pending_since LIMIT $1', [limit]);
    return rows.map((r: { id: number }) => r.id);
  }

  private async change(caller: RemoteCaller, resourceId: number, accountId: number, password: NewPassword, decide: Decide, audit: StoreAudit): Promise<void> {
    const settled = await this.withLock(accountId, true, async (runner) => {
      // Settling logs in with the account's passwords: only for a caller the gate grants.
      if (caller.actor) await this.decided(runner, caller.actor, decide);
      await this.settleLocked(runner, accountId, caller.startedBy ?? `a remote change by ${caller.actor?.username}`);
      // A rotation run whose change a crashed instance left pending, settled just now: done, not again.
      if (audit.rotationRun !== undefined && (await runner.query('SELECT 1 FROM accounts WHERE last_rotation_run = $1', [audit.rotationRun])).length) return;
      const { account, newPassword, sealed } = await this.begin(runner, caller, decide, password, audit.rotationRun);
      try {
        await this.changeOnTarget(caller, account, newPassword);
      } catch (error) {
        const context = `The password of ${account.name} was not changed (the host refused; nothing was changed in the vault)`;
        if (certainlyUnchanged(error) || error instanceof AppError) {
          await this.clearPending(runner, accountId, sealed);
          throw connectorAppError(error, context);
        }
        // The target may or may not have acted: ask it which password it accepts now.
        this.logger.warn(`Remote change of account ${accountId} interrupted: ${(error as Error).message}`);
        const outcome = await this.settleLocked(runner, accountId, 'an interrupted remote change').catch(() => 'undecided' as const);
        if (outcome === 'committed') return;
        if (outcome === 'undecided') throw new AppError(ErrorCode.RemoteFailure, `${context}, or not yet: the target did not answer (${(error as Error).message}); the change is settled as soon as the target can tell`);
        throw connectorAppError(error, context);
      }
      await this.commit(runner, caller.actor, accountId, newPassword, audit);
    });
    return settled;
  }

  /**
   * The caller's decision alone, before a pending change is settled (a settlement logs in
   * with the account's passwords): a refusal is audited and thrown; a grant writes nothing
   * (the change's own row audits it) and is decided again by `begin`, after the settlement.
   */
  private async decided(runner: QueryRunner, actor: Actor, decide: Decide): Promise<void> {
    await runner.startTransaction();
    try {
      await decide(runner.manager);
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      if (error instanceof GateRefusal) await this.gate.auditRefusal(actor, error);
      throw error;
    }
    await runner.rollbackTransaction();
  }

  /** Step 2: decision, policy and history checks, and the pending password, in one committed transaction. */
  private async begin(runner: QueryRunner, caller: RemoteCaller, decide: Decide, password: NewPassword, rotationRun?: number) {
    await runner.startTransaction();
    try {
      const account = await decide(runner.manager);
      // After the decision: a caller who may not see the resource learns nothing about it.
      await this.checkConfigured(runner, account.resource_id);
      const newPassword = typeof password === 'string' ? password : await password(account);
      await this.changer.check(runner.manager, account, newPassword);
      const sealed = this.keyring.seal(newPassword, ACCOUNT_PENDING_CONTEXT);
      await runner.query('UPDATE accounts SET pending_password = $2, pending_since = now(), pending_rotation_run = $3 WHERE id = $1', [account.id, sealed, rotationRun ?? null]);
      await runner.commitTransaction();
      return { account, newPassword, sealed };
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      if (error instanceof GateRefusal && caller.actor) await this.gate.auditRefusal(caller.actor, error);
      throw error;
    }
  }

  /** Step 4: the new password stored (old one to history, audited), the pending one cleared. */
  private async commit(runner: QueryRunner, actor: Actor | null, accountId: number, newPassword: string, audit: StoreAudit): Promise<void> {
    await runner.startTransaction();
    try {
      const account = await this.gate.authorizeServerChange(runner.manager, accountId);
      const { trigger, rotationRun: _run, onStored, ...stored } = audit;
      await this.changer.store(runner.manager, actor, account, newPassword, stored);
      // A scheduled rotation's run is marked done with the password, whoever commits it.
      await runner.query(
        `UPDATE accounts SET pending_password = NULL, pending_since = NULL, password_status = 'IN SYNC', last_verified_at = now(),
           last_rotation_run = coalesce(pending_rotation_run, last_rotation_run), rotation_failed_at = NULL,
           pending_rotation_run = NULL
         WHERE id = $1`,
        [accountId],
      );
      await onStored?.(runner.manager, newPassword);
      await this.events.record(runner.manager, {
        orgId: account.org_id,
        resource: account.resource_name,
        account: account.name,
        resourceId: account.resource_id,
        accountId,
        outcome: 'rotated',
        trigger,
      });
      await runner.commitTransaction();
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  }

  private async clearPending(runner: QueryRunner, accountId: number, sealed: Buffer): Promise<void> {
    await runner.query('UPDATE accounts SET pending_password = NULL, pending_since = NULL, pending_rotation_run = NULL WHERE id = $1 AND pending_password = $2', [accountId, sealed]);
  }

  /**
   * With the account's lock held: logs in as the account with the pending password, then
   * the current one, and keeps the one that works (audited either way). When the target
   * cannot tell, or accepts neither, the pending password stays for a later try.
   */
  private async settleLocked(runner: QueryRunner, accountId: number, startedBy: string): Promise<Settlement> {
    const [row] = await runner.query(
      'SELECT a.id, a.name, a.password, a.pending_password, a.pending_rotation_run, a.resource_id FROM accounts a WHERE a.id = $1 AND a.pending_password IS NOT NULL',
      [accountId],
    );
    if (!row) return 'none';
    // Settling logs in with both passwords: only at the destination they were bound to.
    const bound = await requireBoundDestination(runner, this.audit, accountId, null, startedBy).then(() => true, () => false);
    if (!bound) return 'undecided';
    const settings = await this.settingsOf(row.resource_id, runner);
    const connector = connectorForType(settings.type);
    if (!connector) return 'undecided';
    const target = targetOf(settings, connector);
    const accepts = (password: string) => connector.verify(target, row.name, password, settings.admin_id === accountId).catch(() => undefined);
    const pending = await this.keyring.openText(row.pending_password, ACCOUNT_PENDING_CONTEXT);
    const withPending = await accepts(pending);
    const settled = { actor: null, orgId: settings.org_id, resourceId: settings.resource_id, resourceName: settings.resource_name, accountId, accountName: row.name };
    if (withPending === true) {
      await this.commit(runner, null, accountId, pending, {
        description: `Remote change settled after an interruption: the target accepts the new password; started by ${startedBy}`,
        trigger: `a remote change settled after an interruption (${startedBy})`,
        operation: row.pending_rotation_run ? AuditOperation.PasswordRotated : undefined,
      });
      return 'committed';
    }
    if (withPending === undefined) return 'undecided';
    const withCurrent = await accepts(await this.gate.open(row.password));
    if (withCurrent !== true) {
      if (withCurrent === false) await this.sync.record(accountId, { status: 'OUT OF SYNC', message: 'The target accepts neither the stored nor the pending password' }, null, startedBy);
      return 'undecided';
    }
    await runner.startTransaction();
    try {
      await runner.query(
        `UPDATE accounts SET pending_password = NULL, pending_since = NULL, pending_rotation_run = NULL, password_status = 'IN SYNC', last_verified_at = now() WHERE id = $1`,
        [accountId],
      );
      await this.audit.record(
        { category: 'Resource', operation: AuditOperation.RemoteChangeSettled, outcome: 'Failed', ...settled, description: `The interrupted remote change did not reach the target: the stored password still logs in and is kept; started by ${startedBy}` },
        runner.manager,
      );
      await runner.commitTransaction();
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
    return 'kept';
  }

  /** Runs `work` holding the account's session advisory lock (waiting for it, or 'busy' when `wait` is false). */
  private withLock<T>(accountId: number, wait: true, work: (runner: QueryRunner) => Promise<T>): Promise<T>;
  private withLock<T>(accountId: number, wait: false, work: (runner: QueryRunner) => Promise<T>): Promise<T | 'busy'>;
  private withLock<T>(accountId: number, wait: boolean, work: (runner: QueryRunner) => Promise<T>): Promise<T | 'busy'> {
    return this.slots.run(async () => {
      const runner = this.dataSource.createQueryRunner();
      await runner.connect();
      try {
        if (wait) await runner.query('SELECT pg_advisory_lock($1, $2)', [REMOTE_LOCK_NAMESPACE, accountId]);
        else {
          const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1, $2) AS locked', [REMOTE_LOCK_NAMESPACE, accountId]);
          if (!locked) return 'busy';
        }
        try {
          return await work(runner);
        } finally {
          await runner.query('SELECT pg_advisory_unlock($1, $2)', [REMOTE_LOCK_NAMESPACE, accountId]).catch(() => undefined);
        }
      } finally {
        await runner.release();
      }
    });
  }

  /** A resource type no connector serves, or no administrator named: refused before anything is sealed. */
  private async checkConfigured(runner: QueryRunner, resourceId: number): Promise<void> {
    const settings = await this.settingsOf(resourceId, runner);
    connectorOf(settings.type, settings.resource_name);
    if (!settings.admin_id) {
      throw new AppError(
        ErrorCode.Unavailable,
        `Remote password reset is not configured for resource ${settings.resource_name}: name its administrator account with PUT /restapi/json/v1/resources/${resourceId}/remotepasswordreset`,
      );
    }
  }

  /** A refused change leaves the password as it was, but the attempt is in the audit trail. */
  private async failureAudited(actor: Actor, resourceId: number, accountId: number, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.RemoteFailure) {
        await this.audit.record({
          category: 'Resource',
          operation: AuditOperation.PasswordChangeFailed,
          outcome: 'Failed',
          actor,
          resourceId,
          accountId,
          reason: error.message,
          description: 'Remote password reset refused by the target',
        });
      }
      throw error;
    }
  }
}

/** At most `size` tasks at once; the others wait their turn. */
class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
