import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from '@app/config';

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
