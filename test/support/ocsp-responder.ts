import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { KeyedCertificate, Peer } from './tls-peers';

// A real OpenSSL OCSP responder for the revocation specs. `openssl ocsp -port` (3.0) binds
// every interface, so instead a loopback HTTP server hands each POSTed request to
// `openssl ocsp -reqin … -respout …` with the same index/signer arguments: the responses
// are openssl's own, the socket stays on 127.0.0.1.

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface OcspIssueOptions {
  subject: string;
  serialNumber: string;
  /** Written into the Authority Information Access extension, one access description each. */
  ocspUrl?: string | string[];
  crlUrl?: string;
  /** Adds extendedKeyUsage id-kp-OCSPSigning: a delegated responder certificate. */
  ocspSigning?: boolean;
}

export async function issueOcspCertificate(issuer: KeyedCertificate, options: OcspIssueOptions): Promise<KeyedCertificate> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (options.ocspUrl) extensions.push(new x509.AuthorityInfoAccessExtension({ ocsp: options.ocspUrl }));
  if (options.crlUrl) extensions.push(new x509.CRLDistributionPointsExtension([options.crlUrl]));
  if (options.ocspSigning) extensions.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.ocspSigning]));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: options.serialNumber,
    subject: options.subject,
    issuer: issuer.cert.subject,
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 365 * 86_400_000),
    publicKey: keys.publicKey,
    signingKey: issuer.privateKey,
    signingAlgorithm: EC,
    extensions,
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    cert,
    der: Buffer.from(cert.rawData),
    certPem: cert.toString('pem'),
    keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
    privateKey: keys.privateKey,
  };
}

export interface OcspIndexEntry {
  /** Hex, as given to the certificate generator. */
  serialNumber: string;
  status: 'V' | 'R';
}

export interface OcspResponderOptions {
  /** The CA answered for (`-CA`). */
  ca: KeyedCertificate;
  /** Signs the responses (`-rsigner`/`-rkey`): the CA unless a delegate or a forger is given. */
  signer?: KeyedCertificate;
  entries: OcspIndexEntry[];
  /** 0 (default) picks a free port; leaves need it before the responder starts. */
  port?: number;
  /** More `openssl ocsp` flags, e.g. `-resp_no_certs`. */
  args?: readonly string[];
}

/** openssl's CA database (index.txt): status, expiry, revocation time, serial, file, subject. */
function indexLine(entry: OcspIndexEntry): string {
  const asn1Time = (date: Date) => date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  let serial = entry.serialNumber.toUpperCase().replace(/^(00)+(?=..)/, '');
  if (serial.length % 2) serial = `0${serial}`;
  const revokedAt = entry.status === 'R' ? asn1Time(new Date(Date.now() - 3_600_000)) : '';
  return [entry.status, asn1Time(new Date(Date.now() + 365 * 86_400_000)), revokedAt, serial, 'unknown', `/CN=${serial}`].join('\t');
}

function runOpenssl(args: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile('openssl', args, (error, _stdout, stderr) => (error ? reject(new Error(`openssl ocsp: ${stderr.trim()}`)) : resolve())),
  );
}

export async function startOcspResponder(options: OcspResponderOptions): Promise<Peer> {
  const dir = mkdtempSync(join(tmpdir(), 'ocsp-responder-'));
  const file = (name: string) => join(dir, name);
  const signer = options.signer ?? options.ca;
  writeFileSync(file('ca.pem'), options.ca.certPem);
  writeFileSync(file('signer.pem'), signer.certPem);
  writeFileSync(file('signer.key'), signer.keyPem);
  writeFileSync(file('index.txt'), options.entries.map((entry) => indexLine(entry) + '\n').join(''));
  const base = ['ocsp', '-index', file('index.txt'), '-CA', file('ca.pem'), '-rsigner', file('signer.pem'), '-rkey', file('signer.key'), '-nmin', '5', ...(options.args ?? [])];

  let counter = 0;
  const server = http.createServer((request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const n = ++counter;
      const reqin = file(`req-${n}.der`);
      const respout = file(`resp-${n}.der`);
      writeFileSync(reqin, Buffer.concat(chunks));
      runOpenssl([...base, '-reqin', reqin, '-respout', respout])
        .then(() => readFile(respout))
        .then(
          (body) => response.writeHead(200, { 'content-type': 'application/ocsp-response' }).end(body),
          () => response.writeHead(500).end(),
        );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  return {
    host: '127.0.0.1',
    port: (server.address() as { port: number }).port,
    stop: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          done();
        });
      }),
  };
}
