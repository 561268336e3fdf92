/**
 * A failure told to the person at the terminal: always a cause, never `undefined` or an empty
 * line. Node's connection errors to a name with several addresses arrive as an AggregateError
 * with no message of its own; listen errors name the port, not which setting chose it.
 */
export function describeError(error: unknown, ports: Record<number, string> = {}): string {
  if (error instanceof AggregateError && error.errors.length) {
    return [...new Set(error.errors.map((e) => describeError(e, ports)))].join('; ');
  }
  const e = error as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.code === 'EADDRINUSE' && e.port) {
    const setting = ports[e.port] ? ` (${ports[e.port]})` : '';
    return `Port ${e.port}${setting} on ${e.address ?? 'this host'} is already in use by another process; stop it or choose another port`;
  }
  if (e?.code === 'EACCES' && e.syscall === 'listen' && e.port) {
    return `Not allowed to listen on port ${e.port}${ports[e.port] ? ` (${ports[e.port]})` : ''}: ports below 1024 need root`;
  }
  if (error instanceof Error) {
    const message = error.message || error.name;
    const code = e.code && !message.includes(e.code) ? ` (${e.code})` : '';
    return `${message}${code}`;
  }
  if (error === undefined || error === null || error === '') return 'failed without saying why (no error detail was given)';
  return typeof error === 'string' ? error : JSON.stringify(error);
}
