import { connect, Socket } from 'node:net';

/** An answer as read off the socket: status and the envelope's result message. */
export interface HeldAnswer {
  status: number;
  message: string | undefined;
  /** The Connection header of the answer. */
  connection: string | undefined;
}

export interface HeldRequest {
  method: 'POST' | 'PUT';
  path: string;
  headers: Record<string, string | number>;
  /** Body bytes sent at once; with `chunked` they go as one chunk. */
  body: Buffer;
  chunked?: boolean;
  /** Source address on loopback, to keep the failed-authentication throttle out of the way. */
  localAddress?: string;
}

/**
 * Sends the request line, headers and `body`, then sends nothing more (the declared length
 * or the chunked body is never completed) and waits for the answer. Resolves undefined when
 * none came within `waitMs`: the server was waiting for more of the body.
 */
export function sendAndHold(baseUrl: string, req: HeldRequest, waitMs = 10_000): Promise<HeldAnswer | undefined> {
  return new Promise((resolve) => {
    const socket = open(baseUrl, req.localAddress);
    const head = requestHead(req);
    socket.write(head);
    socket.write(wireBody(req, false));
    readAnswer(socket, waitMs).then((answer) => {
      socket.destroy();
      resolve(answer);
    });
  });
}

/**
 * A client that writes its whole body before it reads anything (as most HTTP libraries do),
 * then reads the answer. Resolves the answer, or the socket error that came instead.
 */
export function sendAllThenRead(baseUrl: string, req: HeldRequest, waitMs = 30_000): Promise<HeldAnswer | { error: string }> {
  return new Promise((resolve) => {
    const socket = open(baseUrl, req.localAddress);
    socket.pause();
    let failed: string | undefined;
    socket.on('error', (error: NodeJS.ErrnoException) => (failed ??= error.code ?? error.message));
    socket.write(requestHead(req));
    socket.write(wireBody(req, true), () => {
      if (failed) return resolve({ error: failed });
      socket.resume();
      readAnswer(socket, waitMs).then((answer) => {
        socket.destroy();
        resolve(answer ?? { error: failed ?? 'no answer' });
      });
    });
    socket.once('close', () => failed && resolve({ error: failed }));
  });
}

/** The body as sent: with `chunked`, one chunk, and the last chunk when `complete`. */
function wireBody(req: HeldRequest, complete: boolean): Buffer {
  if (!req.chunked) return req.body;
  return Buffer.concat([Buffer.from(`${req.body.length.toString(16)}\r\n`), req.body, Buffer.from(complete ? '\r\n0\r\n\r\n' : '\r\n')]);
}

function open(baseUrl: string, localAddress?: string): Socket {
  const url = new URL(baseUrl);
  const socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
  socket.on('error', () => undefined);
  return socket;
}

function requestHead(req: HeldRequest): string {
  const headers = { Host: 'localhost', ...req.headers, ...(req.chunked ? { 'Transfer-Encoding': 'chunked' } : {}) };
  return `${req.method} ${req.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}

/** Reads one answer with a Content-Length body; undefined when it does not arrive in time. */
function readAnswer(socket: Socket, waitMs: number): Promise<HeldAnswer | undefined> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => resolve(undefined), waitMs);
    const done = (answer: HeldAnswer | undefined) => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(answer);
    };
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = received.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (received.length < end + 4 + length) return;
      const body = received.subarray(end + 4, end + 4 + length).toString('utf8');
      let message: string | undefined;
      try {
        const json = JSON.parse(body);
        message = (json.operation?.result ?? json.result)?.message;
      } catch {
        message = undefined;
      }
      done({ status: Number(head.split(' ')[1]), message, connection: /\r\nconnection:\s*([^\r]*)/i.exec(head)?.[1] });
    };
    socket.on('data', onData);
    socket.once('close', () => done(undefined));
  });
}
