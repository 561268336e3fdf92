import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditWriter } from '@app/audit';
import { ConnectorError } from '@app/connectors';
import { AccountSecretGate, DESTINATION_CHANGED, PASSWORD_CONTEXT, requireBoundDestination } from '@app/gate';
import { Keyring } from '@app/crypto';
import { reply, Reply } from '@app/http';
import { Verification } from './remote-change';
import { RemotePasswords } from './remote-passwords';
import { connectorOf, RemoteSettings, targetOf } from './remote-target';
import { SyncRecorder } from './sync-recorder';

/**
 * Whether a stored password still logs in to its target: IN SYNC, OUT OF SYNC (the target
 * refused it) or UNREACHABLE. Logging in with it is a use of the password: a caller's is the
 * gate's decision (Password Used), the server's round is audited as the system actor. A
 * pending change left by a crash is settled first.
 */
@Injectable()
export class PasswordVerifier {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly gate: AccountSecretGate,
    private readonly remote: RemotePasswords,
    private readonly sync: SyncRecorder,
    private readonly audit: AuditWriter,
  ) {}

  /** POST .../accounts/{aid}/verify. */
  async verifyForCaller(actor: Actor, resourceId: number, accountId: number, reason = '', ticketId = ''): Promise<Reply> {
    const open = () =>
      this.gate.openPassword(actor, { use: 'use', resourceId, accountId, reason, ticketId }, 'Verification: login to the target with the stored password');
    // The gate first: settling a pending change logs in with the account's passwords. When
    // the settlement stores another password, that one is decided on and opened anew.
    const granted = await open();
    const settled = await this.remote.settle(accountId, `a verification by ${actor.username}`).catch(() => undefined);
    const { password, account } = settled === 'committed' ? await open() : granted;
    await requireBoundDestination(this.dataSource, this.audit, accountId, actor, `a verification by ${actor.username}`);
    const settings = await this.remote.settingsOf(resourceId);
    const result = await this.verify(settings, account.name, password, settings.admin_id === account.id);
    await this.sync.record(accountId, result, actor);
    return reply(`Password verification finished: ${result.status}`, {
      RESOURCEID: String(resourceId),
      ACCOUNTID: String(accountId),
      ACCOUNTNAME: account.name,
      STATUS: result.status,
      MESSAGE: result.message,
    });
  }

  /** The server's own verification of one account (the periodic round), audited as the system actor. */
  async verifyForServer(accountId: number, startedBy: string): Promise<Verification | undefined> {
    await this.remote.settle(accountId, startedBy).catch(() => undefined);
    const [row] = await this.dataSource.query('SELECT a.name, a.password, a.resource_id FROM accounts a WHERE a.id = $1', [accountId]);
    if (!row) return undefined;
    // Nothing is sent to a destination the password was not bound to (recorded as DESTINATION CHANGED).
    const bound = await requireBoundDestination(this.dataSource, this.audit, accountId, null, startedBy).then(() => true, () => false);
    if (!bound) return { status: DESTINATION_CHANGED, message: `The destination of ${row.name} changed without a decision on its password; nothing was sent` };
    const settings = await this.remote.settingsOf(row.resource_id);
    const result = await this.verify(settings, row.name, await this.keyring.openText(row.password, PASSWORD_CONTEXT), settings.admin_id === accountId);
    await this.sync.record(accountId, result, null, startedBy);
    return result;
  }

  /** One login as the account; a connector failure other than a refusal means the target could not say. */
  async verify(settings: RemoteSettings, accountName: string, password: string, administrator = false): Promise<Verification> {
    try {
      const connector = connectorOf(settings.type, settings.resource_name);
      const target = targetOf(settings, connector);
      const at = `${target.host}:${target.port}`;
      return (await connector.verify(target, accountName, password, administrator))
        ? { status: 'IN SYNC', message: `The stored password of ${accountName} logs in to ${at}` }
        : { status: 'OUT OF SYNC', message: `${at} refused the stored password of ${accountName}` };
    } catch (error) {
      if (error instanceof ConnectorError) return { status: 'UNREACHABLE', message: error.message };
      if (error instanceof Error && 'code' in error) return { status: 'UNREACHABLE', message: error.message };
      throw error;
    }
  }
}
