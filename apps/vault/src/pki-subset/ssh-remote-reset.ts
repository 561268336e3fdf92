import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AccountSecretGate, AccountUse, guardMembershipMoves, resourceVisibleSql, visibilityParams, withMoves } from '@app/gate';
import { AppError, ErrorCode, reply, Reply } from '@app/http';
import { parseHost } from '@app/pki/discovery';
import { changeRemotePassword, hostKeyHost, type SshTarget } from '@app/pki/ssh';
import { expectedHostKey, mapSshErrors, toAppError, verifySshLogin } from '@app/pki/ssh-service';
import { LockedAccount, PasswordChanger } from '../passwords/password-changer';
import type { ConfigureRemoteResetDto } from './ssh-remote-reset.dto';

const DEFAULT_PORT = 22;
const CONNECT_TIMEOUT_MS = 15_000;

interface RemoteConfig {
  resource_name: string;
  resource_type: string;
  admin_id: number | null;
}

export interface RemoteResetOptions {
  /** What started the server's own change (e.g. "scheduled rotation"), named in its audit rows. */
  startedBy: string;
  reason?: string;
  ticketId?: string;
  description?: string;
  /** The audit operation of the stored change (default Password Changed). */
  operation?: string;
  /** More writes of the storing transaction (a rotation's run and event). */
  onStored?: (m: EntityManager) => Promise<void>;
}

/** Who has the administrator credential used: a user (decided on it), or the server naming what started it. */
export interface AdministratorCaller {
  actor: Actor | null;
  reason?: string;
  ticketId?: string;
  startedBy?: string;
}

/**
 * RESETTYPE=REMOTE for Linux resources: the password is changed on the host over SSH
 * with the resource's admin account, and stored only when the host accepted it. The
 * account row stays locked from the check to the store, so no other change interleaves.
 */
@Injectable()
export class SshRemoteReset {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly changer: PasswordChanger,
    private readonly gate: AccountSecretGate,
  ) {}

  /** PUT .../password with RESETTYPE=REMOTE: the gate decides as for a local change, then on the administrator, then the host, then the vault. */
  async changeForCaller(actor: Actor, resourceId: number, accountId: number, newPassword: string, reason = '', ticketId = ''): Promise<void> {
    await this.failureAudited(actor, resourceId, accountId, () =>
      this.gate.transaction(actor, async (m) => {
        const account = await this.gate.authorizeChange(m, actor, { use: 'change', resourceId, accountId, reason, ticketId });
        await this.changer.check(m, account, newPassword);
        await this.changeOnHost(m, account, newPassword, { actor, reason, ticketId });
        await this.changer.store(m, actor, account, newPassword, { reason, ticketId, description: 'Password changed on the host (remote reset)' });
      }),
    );
  }

  /**
   * For server-side rotations: the server's own change, addressed by id, audited as the
   * system actor naming what started it. Throws a Failed AppError naming why when the host
   * refuses; then nothing in the vault has changed.
   */
  async resetRemotePassword(accountId: number, newPassword: string, options: RemoteResetOptions): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const account = await this.gate.authorizeServerChange(m, accountId);
      await this.changer.check(m, account, newPassword);
      await this.changeOnHost(m, account, newPassword, { actor: null, startedBy: options.startedBy });
      await this.changer.store(m, null, account, newPassword, {
        reason: options.reason,
        ticketId: options.ticketId,
        description: `${options.description ?? 'Password changed on the host (remote reset)'}; started by ${options.startedBy}`,
        operation: options.operation,
      });
      await options.onStored?.(m);
    });
  }

  /**
   * Changes the account's password on its resource's host, logged in as the resource's
   * administrator: the gate decides that use (and audits it) before connecting, and the
   * host is the destination it decided on. Use inside the transaction that locked the account.
   */
  async changeOnHost(m: EntityManager, account: LockedAccount, newPassword: string, by: AdministratorCaller): Promise<void> {
    const config = await this.configOf(m, account.resource_id);
    if (config.resource_type.trim().toLowerCase() !== 'linux') {
      throw AppError.invalid(`Remote password reset is supported for Linux resources only; ${config.resource_name} is ${config.resource_type}`);
    }
    if (!config.admin_id) {
      throw new AppError(
        ErrorCode.Unavailable,
        `Remote password reset is not configured for resource ${config.resource_name}: name its administrator account with PUT /restapi/json/v1/resources/${account.resource_id}/remotepasswordreset`,
      );
    }
    const admin = await this.gate.openAdministrator(by.actor, {
      resourceId: account.resource_id,
      reason: by.reason,
      ticketId: by.ticketId,
      startedBy: by.startedBy,
      description: `SSH login to change the password of ${account.name}`,
    });
    if (admin.destination.type.trim().toLowerCase() !== 'linux') throw AppError.invalid(`Remote password reset is supported for Linux resources only; ${config.resource_name} is ${admin.destination.type}`);
    const target: SshTarget = {
      host: admin.destination.host,
      port: admin.destination.port ?? DEFAULT_PORT,
      orgId: account.org_id,
      username: admin.account.name,
      password: admin.password,
      timeoutMs: CONNECT_TIMEOUT_MS,
    };
    await mapSshErrors(
      () => changeRemotePassword(target, account.name, newPassword),
      `The password of ${account.name} was not changed (the host refused; nothing was changed in the vault)`,
    );
  }

  /**
   * Names the admin account (and port, host) used for remote resets, after proving it logs
   * in with root rights. Logging in sends the stored password to the host, so the gate
   * decides first, as for any use of it (modify access, access control, help-desk
   * restriction, reason and ticket), and pointing the resource at another host or port
   * needs full access to the resource. The decision is audited before connecting; a
   * failed login is audited too.
   */
  async configure(actor: Actor, resourceId: number, dto: ConfigureRemoteResetDto): Promise<Reply> {
    const host = dto.DNSNAME ? hostOf(dto.DNSNAME) : undefined;
    // Scoped to the organisation only: whether the caller may see it is the gate's decision,
    // so that a refusal of any kind is audited like every other secret path's.
    const [found] = await this.dataSource.query(
      `SELECT a.id, a.name, r.id AS resource_id, r.name AS resource_name, r.type, r.dns_name, r.remote_port
       FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE r.id = $1 AND r.org_id = $2 AND a.name_key = lower($3)`,
      [resourceId, actor.orgId, dto.ACCOUNTNAME],
    );
    const current = { host: found?.dns_name || found?.resource_name, port: found?.remote_port ?? DEFAULT_PORT };
    const port = dto.PORT ?? current.port;
    const targetHost = host ?? current.host;
    const use: AccountUse = targetHost !== current.host || port !== current.port ? 'configure' : 'use';
    const { password } = await this.gate.openPassword(
      actor,
      { use, resourceId, accountId: found?.id ?? 0, reason: dto.REASON, ticketId: dto.TICKETID },
      `Remote password reset configuration: SSH login to ${targetHost}:${port}`,
    );
    const resource = { id: resourceId, name: found.resource_name as string };
    const admin = { id: found.id as number, name: found.name as string };
    if (String(found.type).toLowerCase() !== 'linux') {
      throw AppError.invalid(`Remote password reset is supported for Linux resources only; ${resource.name} is ${found.type}`);
    }
    const target: SshTarget = {
      host: targetHost,
      port,
      orgId: actor.orgId,
      actor,
      expectedHostKey: expectedHostKey(dto.HOSTKEYFINGERPRINT),
      username: admin.name,
      password,
      timeoutMs: CONNECT_TIMEOUT_MS,
    };
    await this.loginAudited(actor, resource, admin, target);
    return this.dataSource.transaction(async (m) => {
      // A new DNS name can move the resource into or out of groups whose rules read it.
      const { moves } = await guardMembershipMoves(m, actor, [resourceId], () =>
        m.query('UPDATE resources SET remote_account_id = $2, remote_port = $3, dns_name = coalesce($4, dns_name), updated_at = now() WHERE id = $1', [
          resourceId,
          admin.id,
          port,
          host ?? null,
        ]),
      );
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.RemoteResetConfigured,
          actor,
          resourceId,
          resourceName: resource.name,
          accountId: admin.id,
          accountName: admin.name,
          description: withMoves(`Remote password reset through ${target.host}:${port} as ${admin.name}`, moves),
        },
        m,
      );
      return reply(`Remote password reset configured for resource ${resource.name}`, remoteDetails(resourceId, resource.name, target.host, port, admin));
    });
  }

  async describe(actor: Actor, resourceId: number): Promise<Reply> {
    const [row] = await this.dataSource.query(
      `SELECT r.id, r.name, r.dns_name, r.remote_port, a.id AS admin_id, a.name AS admin_name
       FROM resources r LEFT JOIN accounts a ON a.id = r.remote_account_id AND a.resource_id = r.id
       WHERE r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3')}`,
      [...visibilityParams(actor), resourceId],
    );
    if (!row) throw AppError.notFound('No such resource found');
    const admin = row.admin_id ? { id: row.admin_id, name: row.admin_name } : null;
    const host = row.dns_name || row.name;
    const port = row.remote_port ?? DEFAULT_PORT;
    const [pin] = await this.dataSource.query('SELECT fingerprint FROM ssh_host_keys WHERE org_id = $1 AND host = $2 AND port = $3', [
      actor.orgId,
      hostKeyHost(host),
      port,
    ]);
    return reply('Remote password reset settings fetched successfully', {
      ...remoteDetails(row.id, row.name, host, port, admin),
      HOSTKEYFINGERPRINT: pin?.fingerprint ?? '',
    });
  }

  /** The login that proves the admin account; a refusal by the host is in the audit trail. */
  private async loginAudited(actor: Actor, resource: { id: number; name: string }, admin: { id: number; name: string }, target: SshTarget): Promise<void> {
    try {
      await mapSshErrors(() => verifySshLogin(target, true), `Remote password reset was not configured for ${resource.name}`);
    } catch (error) {
      await this.audit.record({
        category: 'Resource',
        operation: AuditOperation.RemoteResetConfigured,
        outcome: 'Failed',
        actor,
        resourceId: resource.id,
        resourceName: resource.name,
        accountId: admin.id,
        accountName: admin.name,
        description: `SSH login to ${target.host}:${target.port} as ${admin.name} failed: ${error instanceof AppError ? error.message : 'error'}`,
      });
      throw error;
    }
  }

  private async configOf(m: EntityManager, resourceId: number): Promise<RemoteConfig> {
    const [config] = await m.query(
      `SELECT r.name AS resource_name, r.type AS resource_type, a.id AS admin_id
       FROM resources r LEFT JOIN accounts a ON a.id = r.remote_account_id AND a.resource_id = r.id
       WHERE r.id = $1`,
      [resourceId],
    );
    if (!config) throw AppError.notFound('No such resource found');
    return config;
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
          description: 'Remote password reset refused by the host',
        });
      }
      throw error;
    }
  }
}

function hostOf(input: string): string {
  try {
    return parseHost(input);
  } catch (error) {
    throw toAppError(error);
  }
}

function remoteDetails(resourceId: number, resourceName: string, host: string, port: number, admin: { id: number; name: string } | null) {
  return {
    RESOURCEID: String(resourceId),
    RESOURCENAME: resourceName,
    HOST: host,
    PORT: String(port),
    ACCOUNTID: admin ? String(admin.id) : '',
    ACCOUNTNAME: admin?.name ?? '',
    CONFIGURED: admin ? 'true' : 'false',
  };
}
