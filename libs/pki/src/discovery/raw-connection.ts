import * as net from 'node:net';
import { classifySocketError, ConnectionFailure, timedOut } from './errors';
import { MAX_RECORD_LENGTH, TlsRecord } from './tls-wire';

export interface RawTarget {
  host: string;
  port: number;
  timeoutMs: number;
  lookup?: net.LookupFunction;
}

/**
 * A TCP connection read record by record, for probes that must speak TLS by hand.
 * One deadline covers the whole exchange, so a slow-dripping peer cannot stretch a probe.
 */
export class RawTlsConnection {
  private buffer = Buffer.alloc(0);
  private readonly records: TlsRecord[] = [];
  private failure: ConnectionFailure | null = null;
  private ended = false;
  private wake: (() => void) | null = null;
  private readonly deadline: number;

  private constructor(
    private readonly socket: net.Socket,
    private readonly timeoutMs: number,
  ) {
    this.deadline = Date.now() + timeoutMs;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => this.stop(classifySocketError(error)));
    socket.on('close', () => this.stop(null));
  }

  static open(target: RawTarget): Promise<RawTlsConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: target.host, port: target.port, ...(target.lookup ? { lookup: target.lookup } : {}) });
      const timer = setTimeout(() => fail(timedOut(target.timeoutMs)), target.timeoutMs);
      function fail(error: ConnectionFailure): void {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      }
      socket.on('error', (error: NodeJS.ErrnoException) => fail(classifySocketError(error)));
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new RawTlsConnection(socket, target.timeoutMs));
      });
    });
  }

  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }

  send(bytes: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /** The next record, or null once the peer has closed; throws on timeout or non-TLS bytes. */
  async next(): Promise<TlsRecord | null> {
    for (;;) {
      const record = this.records.shift();
      if (record) return record;
      if (this.failure) throw this.failure;
      if (this.ended) return null;
      const remaining = this.deadline - Date.now();
      if (remaining <= 0) throw timedOut(this.timeoutMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 5) {
      const type = this.buffer[0]!;
      const version = this.buffer.readUInt16BE(1);
      const length = this.buffer.readUInt16BE(3);
      if (type < 20 || type > 24 || version >> 8 !== 3 || length > MAX_RECORD_LENGTH) {
        this.stop(new ConnectionFailure('not-tls', 'Not a TLS service'));
        return;
      }
      if (this.buffer.length < 5 + length) break;
      this.records.push({ type, version, fragment: this.buffer.subarray(5, 5 + length) });
      this.buffer = this.buffer.subarray(5 + length);
    }
    this.wake?.();
  }

  private stop(failure: ConnectionFailure | null): void {
    if (failure && !this.failure && !this.ended) this.failure = failure;
    this.ended = true;
    this.socket.destroy();
    this.wake?.();
  }
}
