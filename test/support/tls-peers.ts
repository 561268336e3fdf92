import 'reflect-metadata';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import * as x509 from '@peculiar/x509';
import { freePort } from './free-port';

// Real peers for the TLS discovery and vulnerability probes. Everything binds to loopback.

export interface Peer {
  host: string;
  port: number;
  stop(): Promise<void>;
}

// ---------------------------------------------------------------- certificates

export interface KeyedCertificate {
  cert: x509.X509Certificate;
  der: Buffer;
  certPem: string;
  keyPem: string;
  privateKey: webcrypto.CryptoKey;
}

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
}

async function keyed(cert: x509.X509Certificate, keys: webcrypto.CryptoKeyPair): Promise<KeyedCertificate> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    cert,
    der: Buffer.from(cert.rawData),
    certPem: cert.toString('pem'),
    keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
    privateKey: keys.privateKey,
  };
}

const validity = () => ({ notBefore: new Date(Date.now() - 86_400_000), notAfter: new Date(Date.now() + 365 * 86_400_000) });

export async function createCa(name = 'CN=Discovery Test Root'): Promise<KeyedCertificate> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name,
    ...validity(),
    keys,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return keyed(cert, keys);
}

/** A self-signed leaf for `commonName` (also its one DNS name) valid from `notBefore`. */
export async function createSelfSignedLeaf(commonName: string, notBefore: Date): Promise<KeyedCertificate> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '7e57',
    name: `CN=${commonName}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + 365 * 86_400_000),
    keys,
    signingAlgorithm: EC,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: commonName }])],
  });
  return keyed(cert, keys);
}

export interface IssueOptions {
  subject: string;
  serialNumber: string;
  ca?: boolean;
  dnsNames?: string[];
  crlUrl?: string;
}

export async function issueCertificate(issuer: KeyedCertificate, options: IssueOptions): Promise<KeyedCertificate> {
  const keys = await keyPair();
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(!!options.ca, undefined, true)];
  if (options.dnsNames) {
    extensions.push(new x509.SubjectAlternativeNameExtension(options.dnsNames.map((value) => ({ type: 'dns' as const, value }))));
  }
  if (options.crlUrl) extensions.push(new x509.CRLDistributionPointsExtension([options.crlUrl]));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: options.serialNumber,
    subject: options.subject,
    issuer: issuer.cert.subject,
    ...validity(),
    publicKey: keys.publicKey,
    signingKey: issuer.privateKey,
    signingAlgorithm: EC,
    extensions,
  });
  return keyed(cert, keys);
}

export async function createCrl(issuer: KeyedCertificate, revokedSerials: string[]): Promise<Buffer> {
  const crl = await x509.X509CrlGenerator.create({
    issuer: issuer.cert.subject,
    thisUpdate: new Date(Date.now() - 60_000),
    nextUpdate: new Date(Date.now() + 86_400_000),
    entries: revokedSerials.map((serialNumber) => ({ serialNumber, revocationDate: new Date(Date.now() - 60_000) })),
    signingKey: issuer.privateKey,
    signingAlgorithm: EC,
  });
  return Buffer.from(crl.rawData);
}

/** An RSA self-signed pair written by the openssl CLI, for `openssl s_server` peers. */
export function createOpensslIdentity(commonName: string): { dir: string; certFile: string; keyFile: string; der: Buffer; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tls-peer-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${commonName}`, '-days', '30', '-keyout', keyFile, '-out', certFile],
    { stdio: 'ignore' },
  );
  const der = Buffer.from(new x509.X509Certificate(readFileSync(certFile, 'ascii')).rawData);
  return { dir, certFile, keyFile, der, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Resolves every name to 127.0.0.1 so host-name code paths never leave loopback. */
export const loopbackLookup: net.LookupFunction = (_hostname, options, callback) => {
  if (options.all) (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

// ---------------------------------------------------------------- servers

/** Closes the listener and every accepted socket, so no handle outlives a test. */
function trackedServer<S extends net.Server>(server: S, host: string, port = 0): Promise<Peer> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve({
        host,
        port: (server.address() as net.AddressInfo).port,
        stop: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

export interface NodeTlsPeerOptions {
  keyPem: string;
  /** Leaf first, then any intermediates to present. */
  chainPem: string[];
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  minVersion?: tls.SecureVersion;
  maxVersion?: tls.SecureVersion;
}

export interface NodeTlsPeer extends Peer {
  /** SNI names received, in order; a hello without SNI adds nothing. */
  servernames: string[];
}

export async function startNodeTlsServer(options: NodeTlsPeerOptions): Promise<NodeTlsPeer> {
  const servernames: string[] = [];
  const context = { key: options.keyPem, cert: options.chainPem.join('\n') };
  const server = tls.createServer({
    ...context,
    minVersion: options.minVersion ?? 'TLSv1.3',
    maxVersion: options.maxVersion ?? 'TLSv1.3',
    // Seen at ClientHello time, before the client can hang up on a finished handshake.
    SNICallback: (servername, callback) => {
      servernames.push(servername);
      callback(null, tls.createSecureContext(context));
    },
  });
  server.on('secureConnection', (socket: tls.TLSSocket) => {
    socket.on('error', () => undefined);
    socket.end();
  });
  server.on('tlsClientError', () => undefined);
  const peer = await trackedServer(server, options.host ?? '127.0.0.1', options.port);
  return { ...peer, servernames };
}

/** `openssl s_server` with the given extra arguments; resolves once it accepts connections. */
export async function startOpensslServer(identity: { certFile: string; keyFile: string }, args: string[]): Promise<Peer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'openssl',
    ['s_server', '-accept', `127.0.0.1:${port}`, '-cert', identity.certFile, '-key', identity.keyFile, '-www', '-quiet', ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 10_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`openssl s_server did not start: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { host: '127.0.0.1', port, stop };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export function startHttpServer(host = '127.0.0.1', routes: Record<string, Buffer> = {}): Promise<Peer> {
  const server = http.createServer((request, response) => {
    const body = routes[request.url ?? ''];
    if (body) response.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(body);
    else response.writeHead(404).end('not found');
  });
  return trackedServer(server, host);
}

/** Accepts connections and never says a word. */
export function startSilentServer(host = '127.0.0.1'): Promise<Peer> {
  return trackedServer(
    net.createServer((socket) => socket.on('error', () => undefined)),
    host,
  );
}

// ---------------------------------------------------------------- record-level fakes

// Deliberately written apart from the library's own record code, so a bug there cannot
// be mirrored here and hidden.

function record(type: number, version: number, fragment: Buffer): Buffer {
  const header = Buffer.from([type, version >> 8, version & 0xff, fragment.length >> 8, fragment.length & 0xff]);
  return Buffer.concat([header, fragment]);
}

function handshake(type: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([type, body.length >> 16, (body.length >> 8) & 0xff, body.length & 0xff]), body]);
}

interface ParsedClientHello {
  version: number;
  suites: number[];
  heartbeat: boolean;
}

function parseClientHello(data: Buffer): ParsedClientHello | null {
  if (data.length < 9 || data[0] !== 22 || data[5] !== 1) return null;
  const body = data.subarray(9, 9 + data.readUIntBE(6, 3));
  let offset = 34;
  offset += 1 + body[offset]!;
  const suitesLength = body.readUInt16BE(offset);
  const suites: number[] = [];
  for (let i = 0; i < suitesLength; i += 2) suites.push(body.readUInt16BE(offset + 2 + i));
  offset += 2 + suitesLength;
  offset += 1 + body[offset]!;
  let heartbeat = false;
  if (offset + 2 <= body.length) {
    const end = offset + 2 + body.readUInt16BE(offset);
    for (let at = offset + 2; at + 4 <= end; at += 4 + body.readUInt16BE(at + 2)) {
      if (body.readUInt16BE(at) === 0x000f) heartbeat = true;
    }
  }
  return { version: body.readUInt16BE(0), suites, heartbeat };
}

function serverFlight(version: number, suite: number, certificateDer: Buffer, heartbeatExtension: boolean): Buffer {
  const extensions = heartbeatExtension ? Buffer.from([0x00, 0x05, 0x00, 0x0f, 0x00, 0x01, 0x01]) : Buffer.alloc(0);
  const hello = Buffer.concat([
    Buffer.from([version >> 8, version & 0xff]),
    webcrypto.getRandomValues(Buffer.alloc(32)),
    Buffer.from([0, suite >> 8, suite & 0xff, 0]),
    extensions,
  ]);
  const certLength = certificateDer.length;
  const u24 = (n: number) => Buffer.from([n >> 16, (n >> 8) & 0xff, n & 0xff]);
  const certificate = Buffer.concat([u24(certLength + 3), u24(certLength), certificateDer]);
  const messages = Buffer.concat([handshake(2, hello), handshake(11, certificate), handshake(14, Buffer.alloc(0))]);
  return record(22, version, messages);
}

/** Buffers until one whole first record has arrived, then hands it over. */
function onFirstRecord(socket: net.Socket, handler: (data: Buffer) => void): void {
  let buffered = Buffer.alloc(0);
  let handled = false;
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    if (handled || buffered.length < 5 || buffered.length < 5 + buffered.readUInt16BE(3)) return;
    handled = true;
    handler(buffered);
  });
}

const alert = (version: number, description: number) => record(21, version, Buffer.from([2, description]));

/**
 * An SSLv3-only server: whatever version the client offers, it answers with an SSLv3
 * ServerHello choosing a CBC suite when one is offered (TLS_RSA_WITH_AES_128_CBC_SHA first).
 */
export function startSslv3Server(certificateDer: Buffer, host = '127.0.0.1'): Promise<Peer> {
  const preference = [0x002f, 0x0035, 0x000a, 0x0005, 0x0004];
  const server = net.createServer((socket) =>
    onFirstRecord(socket, (data) => {
      const hello = parseClientHello(data);
      const suite = hello && preference.find((s) => hello.suites.includes(s));
      if (!hello || !suite) socket.end(alert(0x0300, 40));
      else socket.write(serverFlight(0x0300, suite, certificateDer, false));
    }),
  );
  return trackedServer(server, host);
}

/**
 * A TLS 1.2 server that grants the heartbeat extension and, with `leak`, answers a
 * heartbeat request with the declared payload length instead of the bytes received
 * (Heartbleed). Without `leak` it drops the request as RFC 6520 requires.
 */
export function startHeartbeatServer(certificateDer: Buffer, leak: boolean, host = '127.0.0.1'): Promise<Peer> {
  const server = net.createServer((socket) =>
    onFirstRecord(socket, (data) => {
      const hello = parseClientHello(data);
      const suite = hello?.suites.find((s) => [0xc02f, 0xc013, 0x002f].includes(s));
      if (!hello || !suite || hello.version < 0x0302) {
        socket.end(alert(0x0301, 40));
        return;
      }
      const version = Math.min(hello.version, 0x0303);
      socket.write(serverFlight(version, suite, certificateDer, hello.heartbeat));
      socket.on('data', (chunk: Buffer) => {
        if (!leak || chunk[0] !== 24 || chunk.length < 8) return;
        const declared = chunk.readUInt16BE(6);
        const memory = Buffer.alloc(declared, 0x41);
        const response = Buffer.concat([Buffer.from([2, declared >> 8, declared & 0xff]), memory, Buffer.alloc(16)]);
        socket.write(record(24, version, response));
      });
    }),
  );
  return trackedServer(server, host);
}
