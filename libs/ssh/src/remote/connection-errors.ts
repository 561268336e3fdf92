import { RemoteHostError } from '../errors';
import { hostLabel } from './target';

const SOCKET_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
};

interface SocketLikeError {
  code?: string;
  level?: string;
  message?: string;
}

/** Maps socket and ssh2 failures to a reason and a message naming only host, port and user. */
export function connectionError(error: unknown, host: string, port: number, username: string, timeoutMs: number): RemoteHostError {
  const where = hostLabel(host, port);
  const err = (error ?? {}) as SocketLikeError;
  if (err.level === 'client-authentication') {
    return new RemoteHostError('auth_failed', `Authentication to ${where} as ${username} failed`);
  }
  if (err.level === 'client-timeout' || err.code === 'ETIMEDOUT') {
    return new RemoteHostError('timeout', `Timed out connecting to ${where} after ${timeoutMs} ms`);
  }
  if (err.code && SOCKET_REASONS[err.code]) {
    return new RemoteHostError('unreachable', `Cannot reach ${where}: ${SOCKET_REASONS[err.code]}`);
  }
  if (err.level === 'protocol' || err.level === 'handshake') {
    return new RemoteHostError('not_ssh', `${where} did not complete an SSH handshake`);
  }
  return new RemoteHostError('unreachable', `Cannot reach ${where}: ${err.code ?? 'connection failed'}`);
}
