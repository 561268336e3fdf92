import net from 'node:net';

/**
 * Refuses, inside this process, every outgoing TCP connection that is not to loopback or a
 * Unix socket, before any packet (or DNS query) leaves: for tests that let generated input
 * reach code that connects to hosts (discovery, deployment, remote reset). Returns the
 * refused destinations and a function that lifts the fence.
 */
export function installLoopbackFence(): { refused: string[]; lift(): void } {
  const refused: string[] = [];
  const original = net.Socket.prototype.connect;
  const fenced = function (this: net.Socket, ...args: unknown[]): net.Socket {
    const destination = destinationOf(args);
    if (destination.path !== undefined || isLoopback(destination.host)) {
      return (original as (...a: unknown[]) => net.Socket).apply(this, args);
    }
    refused.push(destination.host);
    const error = Object.assign(new Error(`loopback fence: no connection to ${destination.host}`), { code: 'ECONNREFUSED' });
    process.nextTick(() => this.destroy(error));
    return this;
  };
  net.Socket.prototype.connect = fenced as typeof net.Socket.prototype.connect;
  return {
    refused,
    lift: () => {
      net.Socket.prototype.connect = original;
    },
  };
}

function destinationOf(args: unknown[]): { host: string; path?: string } {
  // net.createConnection passes its normalised [options, callback] array.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first && typeof first === 'object') {
    const o = first as { host?: string; path?: string };
    return { host: o.host ?? 'localhost', path: o.path };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { host: 'localhost', path: first };
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost' };
}

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\./.test(h);
}
