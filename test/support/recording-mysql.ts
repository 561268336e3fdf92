import { createServer, Server, Socket } from 'node:net';

/**
 * A hostile MySQL peer on loopback: it greets without TLS, then after the client's first
 * answer switches authentication to `plugin` (mysql_clear_password or sha256_password, both of
 * which carry a readable password) and records every packet the client sends after the switch.
 */
export interface RecordingMysql {
  port: number;
  afterSwitch: Buffer[];
  close(): Promise<void>;
}

export async function startRecordingMysql(plugin: 'mysql_clear_password' | 'sha256_password'): Promise<RecordingMysql> {
  const peer: RecordingMysql = { port: 0, afterSwitch: [], close: async () => undefined };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.write(packet(0, greeting()));
    let switched = false;
    socket.on('data', (chunk) => {
      if (switched) {
        peer.afterSwitch.push(chunk);
        return;
      }
      switched = true;
      socket.write(packet(2, Buffer.concat([Buffer.from([0xfe]), Buffer.from(`${plugin}\0`), Buffer.alloc(20, 7), Buffer.from([0])])));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.port = (server.address() as { port: number }).port;
  peer.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return peer;
}

function packet(sequence: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = sequence;
  return Buffer.concat([header, payload]);
}

/** HandshakeV10: protocol 41, secure connection, plugin auth; no TLS offered. */
function greeting(): Buffer {
  const capabilities = 0x00000001 | 0x00000200 | 0x00008000 | 0x00080000;
  const caps = Buffer.alloc(4);
  caps.writeUInt32LE(capabilities);
  return Buffer.concat([
    Buffer.from([10]),
    Buffer.from('5.7.99-recording\0'),
    Buffer.from([1, 0, 0, 0]),
    Buffer.alloc(8, 1),
    Buffer.from([0]),
    caps.subarray(0, 2),
    Buffer.from([33, 2, 0]),
    caps.subarray(2, 4),
    Buffer.from([21]),
    Buffer.alloc(10),
    Buffer.concat([Buffer.alloc(12, 2), Buffer.from([0])]),
    Buffer.from('mysql_native_password\0'),
  ]);
}
