import { changeRemotePassword, RemoteHostError, SshKeyError, type SshTarget, verifySshLogin } from '@app/ssh';
import { AdminSession, Connector, ConnectorError, ConnectorFailure, ConnectorTarget, Credential, DEFAULT_TIMEOUT_MS } from './connector';

/**
 * Linux and other Unix hosts over SSH: `chpasswd` as root, directly or through sudo with the
 * administrator's password. Host keys are pinned per organisation (trust on first use, or
 * the fingerprint the operator gave). Each operation opens its own SSH connection: the
 * session holds the credential, not a connection.
 */
export const sshConnector: Connector = {
  kind: 'ssh',
  defaultPort: 22,
  tlsModes: ['off'],

  async connect(target, admin) {
    return new SshSession(sshTarget(target, admin));
  },

  async verify(target, account, password) {
    try {
      await verifySshLogin(sshTarget(target, { username: account, password }), false);
      return true;
    } catch (error) {
      if (error instanceof RemoteHostError && error.reason === 'auth_failed') return false;
      throw mapError(error);
    }
  },
};

class SshSession implements AdminSession {
  constructor(private readonly target: SshTarget) {}

  async checkPrivilege(): Promise<void> {
    await verifySshLogin(this.target, true).catch((error: unknown) => Promise.reject(mapError(error)));
  }

  async changePassword(account: string, newPassword: string): Promise<void> {
    await changeRemotePassword(this.target, account, newPassword).catch((error: unknown) => Promise.reject(mapError(error)));
  }

  async close(): Promise<void> {}
}

function sshTarget(target: ConnectorTarget, who: Credential): SshTarget {
  return {
    host: target.host,
    port: target.port,
    orgId: target.orgId,
    expectedHostKey: target.expectedHostKey,
    username: who.username,
    password: who.password,
    timeoutMs: target.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
}

const REASONS: Record<string, ConnectorFailure> = {
  unreachable: 'unreachable',
  timeout: 'timeout',
  not_ssh: 'failed',
  auth_failed: 'auth_failed',
  permission_denied: 'permission_denied',
  not_found: 'not_found',
  command_failed: 'failed',
  host_key_rejected: 'tls',
};

function mapError(error: unknown): unknown {
  if (error instanceof RemoteHostError) {
    const unsent = error.reason === 'host_key_rejected' || (error.reason === 'unreachable' && /connection refused|unknown host/.test(error.message));
    return new ConnectorError(REASONS[error.reason] ?? 'failed', error.message, unsent);
  }
  if (error instanceof SshKeyError) return new ConnectorError('invalid', error.message);
  return error;
}
