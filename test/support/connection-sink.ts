import { createServer, Server } from 'node:net';

/** A TCP listener on loopback that counts connections and closes them: proof that nothing was sent. */
export interface ConnectionSink {
  port: number;
  connections(): number;
  close(): Promise<void>;
}

export async function startConnectionSink(): Promise<ConnectionSink> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
