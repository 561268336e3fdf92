import { AddressError } from '@app/net';

/** Bad discovery input (a target list, WAIT); an AddressError, so answered as a client error. */
export class DiscoveryError extends AddressError {
  constructor(message: string) {
    super(message);
    this.name = 'DiscoveryError';
  }
}

export type ConnectionFailureKind = 'refused' | 'timeout' | 'not-found' | 'not-tls' | 'handshake' | 'closed' | 'network';

/** A peer could not be reached or did not speak TLS; the message is shown to users as is. */
export class ConnectionFailure extends Error {
  constructor(
    readonly kind: ConnectionFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'ConnectionFailure';
  }
}

export function timedOut(timeoutMs: number): ConnectionFailure {
  return new ConnectionFailure('timeout', `Timed out after ${formatSeconds(timeoutMs)}s`);
}

function formatSeconds(ms: number): string {
  return Number.isInteger(ms / 1000) ? String(ms / 1000) : (ms / 1000).toFixed(1);
}

/** Maps socket-level errno codes to the user-facing failure kinds. */
export function classifySocketError(error: NodeJS.ErrnoException): ConnectionFailure {
  switch (error.code) {
    case 'ECONNREFUSED':
      return new ConnectionFailure('refused', 'Connection refused');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new ConnectionFailure('not-found', 'Host not found');
    case 'ECONNRESET':
    case 'EPIPE':
      return new ConnectionFailure('closed', 'Connection reset by peer');
    case 'ETIMEDOUT':
      return new ConnectionFailure('timeout', 'Timed out');
    default:
      return new ConnectionFailure('network', `Network error: ${error.code ?? error.message}`);
  }
}
