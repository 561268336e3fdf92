import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { Server as HttpsServer } from 'node:https';
import { AppConfig } from '@app/config';
import { CertificateAuthoritiesService } from '@app/pki/cert-service';

export interface TlsMaterial {
  cert: string;
  key: string;
}

/** TLS_MODE: files → the operator's; self-signed → made at first start and kept; off → none. */
export async function serverTls(config: AppConfig): Promise<TlsMaterial | undefined> {
  if (config.tlsMode === 'off') return undefined;
  if (config.tlsMode === 'files') {
    return { cert: readFileSync(config.tlsCertFile!, 'utf8'), key: readFileSync(config.tlsKeyFile!, 'utf8') };
  }
  const dir = join(config.dataDir, 'tls');
  const certFile = join(dir, 'server.crt');
  const keyFile = join(dir, 'server.key');
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = readFileSync(certFile, 'utf8');
    if (new Date(new X509Certificate(cert).validTo) > new Date(Date.now() + 7 * 86_400_000)) {
      return { cert, key: readFileSync(keyFile, 'utf8') };
    }
  }
  const made = await makeServerCertificate();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, made.key, { mode: 0o600 });
  writeFileSync(certFile, made.cert, { mode: 0o644 });
  return made;
}

/**
 * TLS_MODE=self-signed: once the services have booted (and with them our CAs), they present a
 * certificate issued by our internal service CA (docs/api/vault.md, "Transport"), which no API caller can sign with, kept in DATA_DIR/tls. The bootstrap
 * self-signed certificate only bridges the very first start, before the CAs exist.
 */
export async function presentCaIssuedCertificate(apps: INestApplication[], config: AppConfig): Promise<void> {
  if (config.tlsMode !== 'self-signed') return;
  const authorities = serviceOf(apps, CertificateAuthoritiesService);
  if (!authorities) return;
  const dir = join(config.dataDir, 'tls');
  const certFile = join(dir, 'server.crt');
  const keyFile = join(dir, 'server.key');
  const serviceCaPem = await authorities.serviceCaCertificatePem();
  const issuing = new X509Certificate(serviceCaPem);
  // What a client trusts to verify the services (`curl --cacert DATA_DIR/tls/service-ca.crt`),
  // without fetching it over an unverified connection first.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'service-ca.crt'), serviceCaPem.trim() + '\n', { mode: 0o644 });
  let material = existsSync(certFile) ? { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') } : undefined;
  if (!material || !isCurrentAndIssuedBy(material.cert, issuing)) {
    const issued = await authorities.issueServerCertificate([hostname(), 'localhost', '127.0.0.1', '::1']);
    // The chain goes with the leaf, so clients that trust our root can verify it.
    material = { cert: [issued.certPem, ...issued.chainPems].map((p) => p.trim() + '\n').join(''), key: issued.keyPem };
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(keyFile, material.key, { mode: 0o600 });
    writeFileSync(certFile, material.cert, { mode: 0o644 });
  }
  for (const app of apps) (app.getHttpServer() as HttpsServer).setSecureContext({ cert: material.cert, key: material.key });
}

function isCurrentAndIssuedBy(certPem: string, issuer: X509Certificate): boolean {
  const cert = new X509Certificate(certPem);
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey) && new Date(cert.validTo) > new Date(Date.now() + 30 * 86_400_000);
}

function serviceOf<T>(apps: INestApplication[], type: new (...args: never[]) => T): T | undefined {
  for (const app of apps) {
    try {
      return app.get(type, { strict: false });
    } catch {
      // not in this service
    }
  }
  return undefined;
}

async function makeServerCertificate(): Promise<TlsMaterial> {
  x509.cryptoProvider.set(webcrypto as never);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const name = hostname();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1'),
    name: `CN=${name}, O=Credential Vault`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 825 * 86_400_000),
    keys: keys as never,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: name },
        { type: 'dns', value: 'localhost' },
        { type: 'ip', value: '127.0.0.1' },
        { type: 'ip', value: '::1' },
      ]),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const key = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(pkcs8).toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString('pem') + '\n', key };
}
