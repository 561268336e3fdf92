import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RemoteHostError } from '@app/pki/ssh';
import { verifySshLogin } from '@app/pki/ssh-service';
import { SshRemoteReset } from '../pki-subset/ssh-remote-reset';
import { RemotePasswordResetter, RemoteTarget } from './remote-reset';

const VERIFY_TIMEOUT_MS = 15_000;

/** The workflow's remote reset over SSH, through the vault's RESETTYPE=REMOTE machinery. */
@Injectable()
export class SshRemotePasswordResetter implements RemotePasswordResetter {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ssh: SshRemoteReset,
  ) {}

  async change(target: RemoteTarget, newPassword: string): Promise<void> {
    const [account] = await this.dataSource.query(
      `SELECT a.id, a.name, a.password, a.password_policy, r.id AS resource_id, r.name AS resource_name, r.org_id
       FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE a.id = $1`,
      [target.accountId],
    );
    await this.ssh.changeOnHost(this.dataSource.manager, account, newPassword, { actor: null, startedBy: target.startedBy });
  }

  /** Logs in as the account itself: accepted is true, refused is false, anything else is unknown (throws). */
  async verify(target: RemoteTarget, password: string): Promise<boolean> {
    const [host] = await this.dataSource.query(
      `SELECT coalesce(nullif(dns_name, ''), name) AS host, coalesce(remote_port, 22) AS port, org_id FROM resources WHERE id = $1`,
      [target.resourceId],
    );
    try {
      await verifySshLogin({ host: host.host, port: host.port, orgId: host.org_id, username: target.accountName, password, timeoutMs: VERIFY_TIMEOUT_MS }, false);
      return true;
    } catch (error) {
      if (error instanceof RemoteHostError && error.reason === 'auth_failed') return false;
      throw error;
    }
  }
}
