import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A self-signed certificate for 127.0.0.1 (IP and DNS SANs), written by the openssl CLI into `dir`. */
export function selfSignedLoopback(dir: string): { certFile: string; keyFile: string; certPem: string } {
  const certFile = join(dir, 'peer-cert.pem');
  const keyFile = join(dir, 'peer-key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-days', '2', '-keyout', keyFile, '-out', certFile],
    { stdio: 'ignore' },
  );
  // Readable by the peer's own user (mysql); the PostgreSQL peer tightens it again.
  chmodSync(keyFile, 0o644);
  return { certFile, keyFile, certPem: readFileSync(certFile, 'utf8') };
}

