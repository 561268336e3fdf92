import { randomBytes } from 'node:crypto';

export const ContentType = { ChangeCipherSpec: 20, Alert: 21, Handshake: 22, ApplicationData: 23, Heartbeat: 24 } as const;
export const HandshakeType = { ClientHello: 1, ServerHello: 2, Certificate: 11, ServerKeyExchange: 12, ServerHelloDone: 14 } as const;
export const Version = { SSL3: 0x0300, TLS10: 0x0301, TLS11: 0x0302, TLS12: 0x0303, TLS13: 0x0304 } as const;
const EXT_SERVER_NAME = 0x0000;
const EXT_SUPPORTED_GROUPS = 0x000a;
const EXT_EC_POINT_FORMATS = 0x000b;
const EXT_SIGNATURE_ALGORITHMS = 0x000d;
export const EXT_HEARTBEAT = 0x000f;
const EXT_RENEGOTIATION_INFO = 0xff01;
/** RFC 5246 caps a plaintext fragment at 2^14; compressed/encrypted records may add 2048. */
export const MAX_RECORD_LENGTH = 2 ** 14 + 2048;

export interface TlsRecord {
  type: number;
  version: number;
  fragment: Buffer;
}

export interface ClientHelloOptions {
  recordVersion: number;
  clientVersion: number;
  suites: readonly number[];
  /** Only DNS names go into SNI; RFC 6066 forbids literal addresses. */
  serverName?: string;
  heartbeat?: boolean;
  /** SSLv3 predates extensions; some SSLv3 stacks reject a hello that carries them. */
  extensions?: boolean;
}

const u8 = (n: number) => Buffer.from([n & 0xff]);
const u16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const u24 = (n: number) => Buffer.from([(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
const vec8 = (b: Buffer) => Buffer.concat([u8(b.length), b]);
const vec16 = (b: Buffer) => Buffer.concat([u16(b.length), b]);
const u16list = (values: readonly number[]) => Buffer.concat(values.map(u16));

export function encodeRecord(type: number, version: number, fragment: Buffer): Buffer {
  return Buffer.concat([u8(type), u16(version), u16(fragment.length), fragment]);
}

export function encodeHandshake(type: number, body: Buffer): Buffer {
  return Buffer.concat([u8(type), u24(body.length), body]);
}

function extension(type: number, data: Buffer): Buffer {
  return Buffer.concat([u16(type), vec16(data)]);
}

export function buildClientHello(options: ClientHelloOptions): Buffer {
  const extensions: Buffer[] = [];
  if (options.extensions !== false) {
    if (options.serverName) {
      const name = Buffer.from(options.serverName, 'ascii');
      extensions.push(extension(EXT_SERVER_NAME, vec16(Buffer.concat([u8(0), vec16(name)]))));
    }
    // x25519, secp256r1, secp384r1, secp521r1: without these an ECDHE/ECDH_anon suite cannot be chosen.
    extensions.push(extension(EXT_SUPPORTED_GROUPS, vec16(u16list([0x001d, 0x0017, 0x0018, 0x0019]))));
    extensions.push(extension(EXT_EC_POINT_FORMATS, vec8(u8(0))));
    if (options.clientVersion >= Version.TLS12) {
      const schemes = [0x0401, 0x0501, 0x0601, 0x0403, 0x0503, 0x0603, 0x0804, 0x0805, 0x0806, 0x0201, 0x0203, 0x0202];
      extensions.push(extension(EXT_SIGNATURE_ALGORITHMS, vec16(u16list(schemes))));
    }
    extensions.push(extension(EXT_RENEGOTIATION_INFO, vec8(Buffer.alloc(0))));
    // mode 1 = peer_allowed_to_send: the heartbleed probe needs the server to accept heartbeats.
    if (options.heartbeat) extensions.push(extension(EXT_HEARTBEAT, u8(1)));
  }
  const body = Buffer.concat([
    u16(options.clientVersion),
    randomBytes(32),
    vec8(Buffer.alloc(0)),
    vec16(u16list(options.suites)),
    vec8(u8(0)),
    ...(extensions.length ? [vec16(Buffer.concat(extensions))] : []),
  ]);
  return encodeRecord(ContentType.Handshake, options.recordVersion, encodeHandshake(HandshakeType.ClientHello, body));
}

export interface ServerHello {
  version: number;
  cipherSuite: number;
  extensions: Map<number, Buffer>;
}

export class TlsParseError extends Error {}

export function parseServerHello(body: Buffer): ServerHello {
  if (body.length < 38) throw new TlsParseError('ServerHello too short');
  const version = body.readUInt16BE(0);
  let offset = 34;
  const sessionIdLength = body[offset]!;
  offset += 1 + sessionIdLength;
  if (body.length < offset + 3) throw new TlsParseError('ServerHello truncated');
  const cipherSuite = body.readUInt16BE(offset);
  offset += 3;
  const extensions = new Map<number, Buffer>();
  if (body.length >= offset + 2) {
    const end = Math.min(body.length, offset + 2 + body.readUInt16BE(offset));
    offset += 2;
    while (offset + 4 <= end) {
      const type = body.readUInt16BE(offset);
      const length = body.readUInt16BE(offset + 2);
      extensions.set(type, body.subarray(offset + 4, offset + 4 + length));
      offset += 4 + length;
    }
  }
  return { version, cipherSuite, extensions };
}

export interface HandshakeMessage {
  type: number;
  body: Buffer;
}

/** Handshake messages may be split across records or packed several to a record. */
export class HandshakeAssembler {
  private pending = Buffer.alloc(0);

  push(fragment: Buffer): HandshakeMessage[] {
    this.pending = Buffer.concat([this.pending, fragment]);
    const messages: HandshakeMessage[] = [];
    while (this.pending.length >= 4) {
      const length = this.pending.readUIntBE(1, 3);
      if (this.pending.length < 4 + length) break;
      messages.push({ type: this.pending[0]!, body: this.pending.subarray(4, 4 + length) });
      this.pending = this.pending.subarray(4 + length);
    }
    return messages;
  }
}

const ALERTS: Record<number, string> = {
  0: 'close_notify',
  10: 'unexpected_message',
  20: 'bad_record_mac',
  40: 'handshake_failure',
  47: 'illegal_parameter',
  50: 'decode_error',
  70: 'protocol_version',
  71: 'insufficient_security',
  80: 'internal_error',
  86: 'inappropriate_fallback',
  110: 'unsupported_extension',
  112: 'unrecognized_name',
};

export function alertName(fragment: Buffer): string {
  const description = fragment[1];
  return description === undefined ? 'alert' : (ALERTS[description] ?? `alert ${description}`);
}

export function versionName(version: number): string {
  const names: Record<number, string> = { 0x0300: 'SSLv3', 0x0301: 'TLSv1', 0x0302: 'TLSv1.1', 0x0303: 'TLSv1.2', 0x0304: 'TLSv1.3' };
  return names[version] ?? `0x${version.toString(16)}`;
}
