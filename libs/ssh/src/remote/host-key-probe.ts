import { RemoteHostError } from '../errors';
import { connectionError } from './connection-errors';
import { checkHostKey, presentedHostKey, type PresentedHostKey } from './host-key';
import { newSshClient } from './ssh2-client';
import { DEFAULT_CONNECT_TIMEOUT_MS, hostLabel, type SshTarget } from './target';

/**
 * Runs the key exchange only, checks the host key like every connection does (recording
 * it on first sight) and disconnects before authentication: discovery learns a host's key
 * without any credentials.
 */
export async function checkHostKeyOnly(target: Omit<SshTarget, 'username'>): Promise<PresentedHostKey> {
  const timeoutMs = target.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const where = hostLabel(target.host, target.port);
  const full: SshTarget = { ...target, username: '' };
  const client = await newSshClient();
  return new Promise((resolve, reject) => {
    let outcome: { key: PresentedHostKey } | { error: RemoteHostError } | undefined;
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      client.end();
      if (outcome && 'key' in outcome) resolve(outcome.key);
      else if (outcome) reject(outcome.error);
      else reject(connectionError(error, target.host, target.port, '', timeoutMs));
    };
    client.on('ready', () => finish());
    client.on('error', (error) => finish(error));
    client.on('close', () => finish(new RemoteHostError('unreachable', `Cannot reach ${where}: connection closed`)));
    try {
      client.connect({
        host: target.host,
        port: target.port,
        username: 'host-key-check',
        readyTimeout: timeoutMs,
        hostVerifier: (blob: Buffer, verify: (valid: boolean) => void) => {
          const key = presentedHostKey(blob);
          checkHostKey(full, key).then(
            () => {
              outcome = { key };
              // Never go on to authenticate: the key is all discovery wants.
              verify(false);
            },
            (error: unknown) => {
              outcome = { error: error instanceof RemoteHostError ? error : new RemoteHostError('host_key_rejected', `The host key of ${where} could not be checked`) };
              verify(false);
            },
          );
        },
      });
    } catch (error) {
      finish(error);
    }
  });
}
