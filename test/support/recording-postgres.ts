import { createServer, Server, Socket } from 'node:net';

/** How the fake server asks for the password: in clear text, as MD5, or not at all (trust). */
export type RecordingAuth = 'cleartext' | 'md5' | 'trust';

/**
 * A hostile PostgreSQL peer on loopback: it declines TLS, asks for the password the way it is
 * told, and records every user and password message it receives. A test proves that nothing
 * reached it (issue 33: a connector never follows a peer into a weaker authentication).
 */
export interface RecordingPostgres {
  port: number;
  auth: RecordingAuth;
  /** Startup user names seen, and the password messages received (their text). */
  users: string[];
  passwords: string[];
  close(): Promise<void>;
}

export async function startRecordingPostgres(auth: RecordingAuth): Promise<RecordingPostgres> {
  const peer: RecordingPostgres = { port: 0, auth, users: [], passwords: [], close: async () => undefined };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          const code = buffer.readInt32BE(4);
          const body = buffer.subarray(8, length);
          buffer = buffer.subarray(length);
          if (code === 80877103) {
            socket.write('N'); // no TLS here
            continue;
          }
          started = true;
          const fields = body.toString('utf8').split('\0');
          const user = fields[fields.indexOf('user') + 1];
          if (user) peer.users.push(user);
          if (auth === 'cleartext') socket.write(authMessage(3));
          else if (auth === 'md5') socket.write(authMessage(5, Buffer.from([1, 2, 3, 4])));
          else socket.write(Buffer.concat([authMessage(0), Buffer.from([0x5a, 0, 0, 0, 5, 0x49])])); // AuthenticationOk, ReadyForQuery
          continue;
        }
        if (buffer.length < 5) return;
        const type = String.fromCharCode(buffer[0]);
        const length = buffer.readInt32BE(1);
        if (buffer.length < length + 1) return;
        const body = buffer.subarray(5, length + 1);
        buffer = buffer.subarray(length + 1);
        if (type === 'p') {
          peer.passwords.push(body.toString('utf8').replace(/\0$/, ''));
          socket.end(errorMessage('28P01', 'password authentication failed'));
        } else if (type === 'X') socket.end();
      }
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

function authMessage(code: number, extra = Buffer.alloc(0)): Buffer {
  const message = Buffer.alloc(9 + extra.length);
  message.write('R', 0);
  message.writeInt32BE(8 + extra.length, 1);
  message.writeInt32BE(code, 5);
  extra.copy(message, 9);
  return message;
}

function errorMessage(code: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0C${code}\0M${text}\0\0`);
  const message = Buffer.alloc(5 + fields.length);
  message.write('E', 0);
  message.writeInt32BE(4 + fields.length, 1);
  fields.copy(message, 5);
  return message;
}
