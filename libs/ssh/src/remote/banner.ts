import { connect } from 'node:net';
import { RemoteHostError } from '../errors';
import { connectionError } from './connection-errors';
import { hostLabel } from './target';

/** RFC 4253 §4.2 lets a server send other lines before its identification line. */
const MAX_PRE_BANNER_BYTES = 8192;

/**
 * Connects, reads the server's identification line (`SSH-2.0-OpenSSH_9.2p1 ...`) and
 * disconnects without sending anything; used to discover SSH hosts in an address range.
 */
export function probeSshBanner(host: string, port: number, timeoutMs = 5000): Promise<string> {
  const where = hostLabel(host, port);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    const timer = setTimeout(
      () => finish(() => reject(new RemoteHostError('timeout', `Timed out waiting for an SSH banner from ${where} after ${timeoutMs} ms`))),
      timeoutMs,
    );
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const lines = received.toString('latin1').split('\n');
      for (const line of lines.slice(0, -1)) {
        if (line.startsWith('SSH-')) {
          finish(() => resolve(line.replace(/\r$/, '')));
          return;
        }
      }
      if (received.length > MAX_PRE_BANNER_BYTES) finish(() => reject(notSsh(where)));
    });
    socket.on('error', (error) => finish(() => reject(connectionError(error, host, port, '', timeoutMs))));
    socket.on('close', () => finish(() => reject(notSsh(where))));
  });
}

function notSsh(where: string): RemoteHostError {
  return new RemoteHostError('not_ssh', `${where} did not answer with an SSH banner`);
}
