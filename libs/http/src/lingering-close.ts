import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** nginx's lingering_time and lingering_timeout: the longest the dropping lasts, and the longest pause in it. */
const LINGER_MS = 30_000;
const LINGER_IDLE_MS = 5_000;

const lingering = new WeakSet<Socket>();

/**
 * For a request answered without reading the rest of its body: the answer says
 * `Connection: close`, and after it the server keeps reading and dropping what the client
 * still sends (at most `maxBytes`, LINGER_MS, pauses up to LINGER_IDLE_MS) before it
 * closes. Closing at once resets a connection the client is still writing to, and a client
 * that writes its whole body before reading the answer (most HTTP libraries) then gets
 * EPIPE instead of the refusal. Nothing read here is kept.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse, maxBytes: number): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  const socket = req.socket;
  if (lingering.has(socket)) return;
  lingering.add(socket);
  // Node's server calls destroySoon() once the last answer on a connection is written.
  socket.destroySoon = () => linger(socket);
  res.once('finish', () => {
    let dropped = 0;
    let idle = setTimeout(() => socket.destroy(), LINGER_IDLE_MS).unref();
    req.removeAllListeners('data');
    req.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      idle.refresh();
      if (dropped > maxBytes) socket.destroy();
    });
    req.once('end', () => clearTimeout(idle));
    socket.once('close', () => clearTimeout(idle));
    req.resume();
  });
}

function linger(socket: Socket): void {
  socket.end();
  const total = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(total));
}
