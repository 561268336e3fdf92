import { Injectable } from '@nestjs/common';
import { ConnectorError } from '@app/connectors';
import { RemotePasswords } from '../remote-reset/remote-passwords';
import { connectorAppError, connectorOf, targetOf } from '../remote-reset/remote-target';
import { RemotePasswordResetter, RemoteTarget } from './remote-reset';

/** The workflow's remote reset (after check-in), through the connector of the resource's kind. */
@Injectable()
export class ConnectorRemoteResetter implements RemotePasswordResetter {
  constructor(private readonly remote: RemotePasswords) {}

  async change(target: RemoteTarget, newPassword: string): Promise<void> {
    const account = { id: target.accountId, name: target.accountName, resource_id: target.resourceId };
    await this.remote.changeOnTarget({ actor: null, startedBy: target.startedBy }, account, newPassword).catch((error: unknown) => {
      throw connectorAppError(error, `The password of ${target.accountName} was not changed (the host refused; nothing was changed in the vault)`);
    });
  }

  /** Logs in as the account itself: accepted is true, refused is false, anything else is unknown (throws). */
  async verify(target: RemoteTarget, password: string): Promise<boolean> {
    // Only where the account's password was bound (it may run inside a transaction holding the account: no write).
    await this.remote.requireBound(target.accountId, target.startedBy);
    const settings = await this.remote.settingsOf(target.resourceId);
    const connector = connectorOf(settings.type, settings.resource_name);
    try {
      return await connector.verify(targetOf(settings, connector), target.accountName, password, settings.admin_id === target.accountId);
    } catch (error) {
      throw error instanceof ConnectorError ? new Error(error.message) : error;
    }
  }
}
