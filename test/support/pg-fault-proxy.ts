import { createConnection, createServer, Server, Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that can be switched into the ways a database refuses
 * service: forward (healthy), refuse (connection refused), blackhole (accepts, never answers:
 * a timeout), or answer every new connection's start-up with a FATAL error of a given SQLSTATE
 * (53300 too many connections, 28P01 authentication failure, 57P03 cannot connect now...).
 * Switching closes every open connection, so a pool's idle clients meet the new mode.
 */
export interface PgFaultProxy {
  url: string;
  set(mode: ProxyMode): void;
  close(): Promise<void>;
}

export type ProxyMode = { kind: 'forward' } | { kind: 'refuse' } | { kind: 'blackhole' } | { kind: 'fatal'; code: string; message: string };

export async function startPgFaultProxy(databaseUrl: string): Promise<PgFaultProxy> {
  const target = new URL(databaseUrl);
  let mode: ProxyMode = { kind: 'forward' };
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (mode.kind === 'refuse') return void client.destroy();
    if (mode.kind === 'blackhole') return;
    if (mode.kind === 'fatal') {
      const { code, message } = mode;
      client.once('data', () => client.end(errorResponse(code, message)));
      return;
    }
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    track(upstream);
    client.pipe(upstream).pipe(client);
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    set(next) {
      mode = next;
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A FATAL ErrorResponse message of the PostgreSQL protocol. */
function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat([field('S', 'FATAL'), field('V', 'FATAL'), field('C', code), field('M', message), Buffer.from([0])]);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

function field(type: string, value: string): Buffer {
  return Buffer.concat([Buffer.from(type), Buffer.from(value, 'utf8'), Buffer.from([0])]);
}
