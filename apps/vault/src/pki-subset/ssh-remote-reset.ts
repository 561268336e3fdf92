import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { AppError, ErrorCode, reply, Reply } from '@app/http';
import { parseHost } from '../../../../libs/pki/src/discovery';
import { changeRemotePassword, type SshTarget } from '../../../../libs/pki/src/ssh';
import { expectedHostKey, mapSshErrors, toAppError, verifySshLogin } from '../../../../libs/pki/src/ssh-service';
import { resourceVisibleSql, visibilityParams } from '../common/visibility';
import { LockedAccount, PasswordChanger } from '../passwords/password-changer';
import { PASSWORD_CONTEXT } from '../resources/resources.service';
import { missingJustification, readSettings } from '../settings/settings';
import type { ConfigureRemoteResetDto } from './ssh-remote-reset.dto';

const DEFAULT_PORT = 22;
const CONNECT_TIMEOUT_MS = 15_000;

interface RemoteConfig {
  resource_name: string;
  resource_type: string;
  dns_name: string;
  remote_port: number | null;
  admin_id: number | null;
  admin_name: string | null;
  admin_password: Buffer | null;
}

export interface RemoteResetOptions {
  /** Who asks; null for the server itself (e.g. a rotation after check-in). */
  actor?: Actor | null;
  reason?: string;
  ticketId?: string;
  description?: string;
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
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly changer: PasswordChanger,
  ) {}

  /** PUT .../password with RESETTYPE=REMOTE: the same gates as a local change, then the host, then the vault. */
  async changeForCaller(actor: Actor, resourceId: number, accountId: number, newPassword: string, reason = '', ticketId = ''): Promise<void> {
    await this.failureAudited(actor, resourceId, accountId, () =>
      this.dataSource.transaction(async (m) => {
        const account = await this.changer.lockVisibleAccount(m, actor, resourceId, accountId);
        if (!account.may_modify) throw AppError.forbidden(`You need modify access to account ${account.name} to change its password`);
        const missing = missingJustification(await readSettings(m, account.org_id), reason, ticketId);
        if (missing) throw AppError.invalid(missing);
        await this.changer.check(m, account, newPassword);
        await this.changeOnHost(m, account, newPassword);
        await this.changer.store(m, actor, account, newPassword, { reason, ticketId, description: 'Password changed on the host (remote reset)' });
      }),
    );
  }

  /**
   * For server-side rotations (e.g. after check-in): no visibility check, the account is
   * addressed by id. Throws a Failed AppError naming why when the host refuses; then
   * nothing in the vault has changed.
   */
  async resetRemotePassword(accountId: number, newPassword: string, options: RemoteResetOptions = {}): Promise<void> {
    const actor = options.actor ?? null;
    await this.dataSource.transaction(async (m) => {
      const account = await this.lockAccount(m, accountId);
      await this.changer.check(m, account, newPassword);
      await this.changeOnHost(m, account, newPassword);
      await this.changer.store(m, actor, account, newPassword, {
        reason: options.reason,
        ticketId: options.ticketId,
        description: options.description ?? 'Password changed on the host (remote reset)',
      });
    });
  }

  /** Changes the account's password on its resource's host; use inside the transaction that locked the account. */
  async changeOnHost(m: EntityManager, account: LockedAccount, newPassword: string): Promise<void> {
    const config = await this.configOf(m, account.resource_id);
    if (config.resource_type.trim().toLowerCase() !== 'linux') {
      throw AppError.invalid(`Remote password reset is supported for Linux resources only; ${config.resource_name} is ${config.resource_type}`);
    }
    if (!config.admin_id || !config.admin_name || !config.admin_password) {
      throw new AppError(
        ErrorCode.Unavailable,
        `Remote password reset is not configured for resource ${config.resource_name}: name its administrator account with PUT /restapi/json/v1/resources/${account.resource_id}/remotepasswordreset`,
      );
    }
    const target: SshTarget = {
      host: config.dns_name || config.resource_name,
      port: config.remote_port ?? DEFAULT_PORT,
      orgId: account.org_id,
      username: config.admin_name,
      password: await this.keyring.openText(config.admin_password, PASSWORD_CONTEXT),
      timeoutMs: CONNECT_TIMEOUT_MS,
    };
    await mapSshErrors(
      () => changeRemotePassword(target, account.name, newPassword),
      `The password of ${account.name} was not changed (the host refused; nothing was changed in the vault)`,
    );
  }

  /** Names the admin account (and port, host) used for remote resets, after proving it logs in with root rights. */
  async configure(actor: Actor, resourceId: number, dto: ConfigureRemoteResetDto): Promise<Reply> {
    const host = dto.DNSNAME ? hostOf(dto.DNSNAME) : undefined;
    return this.dataSource.transaction(async (m) => {
      const [resource] = await m.query(
        `SELECT r.id, r.name, r.type, r.dns_name, r.org_id FROM resources r
         WHERE r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3', { atLeast: 'modify' })} FOR UPDATE OF r`,
        [...visibilityParams(actor), resourceId],
      );
      if (!resource) throw AppError.notFound('No such resource found');
      if (String(resource.type).toLowerCase() !== 'linux') {
        throw AppError.invalid(`Remote password reset is supported for Linux resources only; ${resource.name} is ${resource.type}`);
      }
      const [admin] = await m.query('SELECT id, name, password FROM accounts WHERE resource_id = $1 AND name_key = lower($2)', [resourceId, dto.ACCOUNTNAME]);
      if (!admin) throw AppError.notFound(`No account ${dto.ACCOUNTNAME} on resource ${resource.name}`);
      const port = dto.PORT ?? DEFAULT_PORT;
      const target: SshTarget = {
        host: host ?? (resource.dns_name || resource.name),
        port,
        orgId: resource.org_id,
        actor,
        expectedHostKey: expectedHostKey(dto.HOSTKEYFINGERPRINT),
        username: admin.name,
        password: await this.keyring.openText(admin.password, PASSWORD_CONTEXT),
        timeoutMs: CONNECT_TIMEOUT_MS,
      };
      await mapSshErrors(() => verifySshLogin(target, true), `Remote password reset was not configured for ${resource.name}`);
      await m.query('UPDATE resources SET remote_account_id = $2, remote_port = $3, dns_name = coalesce($4, dns_name), updated_at = now() WHERE id = $1', [
        resourceId,
        admin.id,
        port,
        host ?? null,
      ]);
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.RemoteResetConfigured,
          actor,
          resourceId,
          resourceName: resource.name,
          accountId: admin.id,
          accountName: admin.name,
          description: `Remote password reset through ${target.host}:${port} as ${admin.name}`,
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
    return reply('Remote password reset settings fetched successfully', remoteDetails(row.id, row.name, row.dns_name || row.name, row.remote_port ?? DEFAULT_PORT, admin));
  }

  private async configOf(m: EntityManager, resourceId: number): Promise<RemoteConfig> {
    const [config] = await m.query(
      `SELECT r.name AS resource_name, r.type AS resource_type, r.dns_name, r.remote_port,
         a.id AS admin_id, a.name AS admin_name, a.password AS admin_password
       FROM resources r LEFT JOIN accounts a ON a.id = r.remote_account_id AND a.resource_id = r.id
       WHERE r.id = $1`,
      [resourceId],
    );
    if (!config) throw AppError.notFound('No such resource found');
    return config;
  }

  private async lockAccount(m: EntityManager, accountId: number): Promise<LockedAccount> {
    const [account] = await m.query(
      `SELECT a.id, a.name, a.password, a.password_policy, r.id AS resource_id, r.name AS resource_name, r.org_id
       FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE a.id = $1 FOR UPDATE OF a`,
      [accountId],
    );
    if (!account) throw AppError.notFound('No such account found');
    return account;
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
