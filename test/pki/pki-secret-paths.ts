import request from 'supertest';
import { createUserWithToken, TestServices } from '../support/app';
import { inputData } from '../support/http';
import { createSelfSignedLeaf, startNodeTlsServer } from '../support/tls-peers';
import { API, binary } from './cert-e2e-helpers';

export type Presentation = 'pki' | 'vault';

/** One route that releases a pki secret; every one goes through PkiSecretGate. */
export interface SecretPath {
  route: string;
  method: 'get' | 'post';
  presentation: Presentation;
  /** INPUT_DATA naming the object that `setup` made in the default organisation. */
  details: Record<string, string>;
  /** Makes the object (as the default organisation's administrator); once per object name. */
  setup: (s: TestServices) => Promise<void>;
  /** The audit operation of this secret (grant and refusal). */
  operation: string;
  /** The released body carries the secret. */
  released: (body: Buffer) => boolean;
}

const SSH_KEY = 'gate-ssh-key';
const SSH_PASSPHRASE = 'Ssh-Pass-Phrase-1';
const CERT = 'gate-cert.example.test';
const CERT_PASSWORD = 'Cert-Key-Pass-1';
export const VAULT_KEY = 'gate-vault-key';
const VAULT_CONTENT = 'vault key content that only a key manager may take away';
export const PGP_OWNER = 'pgp-owner';

export const call = (base: string, method: 'get' | 'post', op: string, token: string, details: Record<string, unknown>) =>
  request(base)[method](`${API}/${op}`).set('AUTHTOKEN', token).query({ INPUT_DATA: inputData(details) }).buffer(true).parse(binary);

const once = (make: (s: TestServices) => Promise<void>) => {
  let made: Promise<void> | undefined;
  return (s: TestServices) => (made ??= make(s));
};

const sshKey = once(async (s) => {
  const res = await call(s.pkiUrl, 'post', 'createsshkey', s.adminToken, { keyName: SSH_KEY, keyType: 'ed25519', passPhrase: SSH_PASSPHRASE });
  expect(JSON.parse(res.body.toString()).result.status).toBe('Success');
});
const certificate = once(async (s) => {
  const res = await call(s.pkiUrl, 'post', 'createCertificate', s.adminToken, { CNAME: CERT, PASSWORD: CERT_PASSWORD });
  expect(JSON.parse(res.body.toString()).result.status).toBe('Success');
  // Issue 24: an endpoint presenting a newer certificate of the same name (found by discovery)
  // changes nothing below; every certificate path still releases the managed one.
  const forged = await createSelfSignedLeaf(CERT, new Date(Date.now() + 3600_000));
  const peer = await startNodeTlsServer({ keyPem: forged.keyPem, chainPem: [forged.certPem], host: '127.0.0.9' });
  try {
    const found = await call(s.pkiUrl, 'post', 'sslCertSingleDiscovery', s.adminToken, { HOST: peer.host, PORT: String(peer.port), TIMEOUT: '5' });
    expect(JSON.parse(found.body.toString()).details[peer.host][0]).toBe('SUCCESS');
  } finally {
    await peer.stop();
  }
});
const vaultKey = once(async (s) => {
  const res = await request(s.pkiUrl).post(`${API}/addKeyStoreKey`).set('AUTHTOKEN', s.adminToken)
    .field('INPUT_DATA', inputData({ keyName: VAULT_KEY })).attach('File', Buffer.from(VAULT_CONTENT), 'gate.key');
  expect(res.body.result.Status).toBe('Success');
});
// The CSR's id is known once setup made it: the paths' details objects are filled in then.
const CSR_PASSWORD = 'Csr-Key-Pass-1';
const csrKeyDetails = { CSR_ID: '', fileType: 'PrivateKey' };
const csrStoreDetails = { CSR_ID: '', fileType: 'KeyStore' };
const csr = once(async (s) => {
  const res = await call(s.pkiUrl, 'post', 'createCSR', s.adminToken, { CNAME: 'gate-csr.example.test', PASSWORD: CSR_PASSWORD });
  const body = JSON.parse(res.body.toString());
  expect(body.result.status).toBe('Success');
  csrKeyDetails.CSR_ID = csrStoreDetails.CSR_ID = String(body.details.CSR_ID);
});
const pgpOwner = once(async (s) => {
  await createUserWithToken(s, PGP_OWNER, 'Password User');
});
const text = (needle: string) => (body: Buffer) => body.toString('latin1').includes(needle);
const nonEmptyFile = (body: Buffer) => body.length > 100 && !body.toString('latin1').includes('"status":"Failed"');

/** Every route that releases a pki secret, on each presentation that has it. */
export const PKI_SECRET_PATHS: SecretPath[] = [
  ...(['pki', 'vault'] as const).flatMap((presentation): SecretPath[] => [
    { route: 'exportSSHKey', method: 'post', presentation, details: { keyName: SSH_KEY, keyExportType: 'private' }, setup: sshKey, operation: 'SSH Key Exported', released: text('PRIVATE KEY') },
    { route: 'getCertificate', method: 'get', presentation, details: { common_name: CERT, fileType: 'KEY' }, setup: certificate, operation: 'Certificate Exported', released: text('ENCRYPTED PRIVATE KEY') },
    { route: 'getCertificate', method: 'get', presentation, details: { common_name: CERT, fileType: 'PKCS' }, setup: certificate, operation: 'Certificate Exported', released: nonEmptyFile },
    { route: 'getCertificate', method: 'get', presentation, details: { common_name: CERT, fileType: 'JKS' }, setup: certificate, operation: 'Certificate Exported', released: nonEmptyFile },
    { route: 'getCertificateKeyStore', method: 'get', presentation, details: { common_name: CERT }, setup: certificate, operation: 'Certificate Exported', released: nonEmptyFile },
    { route: 'getCertificatePassphrase', method: 'get', presentation, details: { common_name: CERT }, setup: certificate, operation: 'Certificate Passphrase Retrieved', released: text(CERT_PASSWORD) },
    { route: 'exportCSR', method: 'get', presentation, details: csrKeyDetails, setup: csr, operation: 'CSR Exported', released: text('ENCRYPTED PRIVATE KEY') },
    { route: 'exportCSR', method: 'get', presentation, details: csrStoreDetails, setup: csr, operation: 'CSR Exported', released: nonEmptyFile },
  ]),
  { route: 'getSSHKeyPassphrase', method: 'get', presentation: 'pki', details: { keyName: SSH_KEY }, setup: sshKey, operation: 'SSH Key Passphrase Retrieved', released: text(SSH_PASSPHRASE) },
  { route: 'exportKeyStoreKey', method: 'post', presentation: 'pki', details: { keyName: VAULT_KEY }, setup: vaultKey, operation: 'Key Vault Key Exported', released: text(VAULT_CONTENT) },
  { route: 'getPGPKey', method: 'get', presentation: 'pki', details: { User: PGP_OWNER, keyExportType: 'private' }, setup: pgpOwner, operation: 'PGP Key Exported', released: text('PRIVATE KEY BLOCK') },
];
