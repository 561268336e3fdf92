import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateError, readKeyStoreOffLoop } from '@app/pki/certs';
import { importSshPrivateKeyOffLoop, SshKeyError } from '@app/ssh';

const dir = mkdtempSync(join(tmpdir(), 'off-loop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (command: string, args: string[]) => execFileSync(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

describe('keystore and key parsing in a worker thread', () => {
  beforeAll(() => {
    run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=off-loop']);
    // Within the limit but costly for node-forge: ~seconds of CPU if it ran on the event loop.
    run('openssl', ['pkcs12', '-export', '-in', 'cert.pem', '-inkey', 'key.pem', '-out', 'slow.p12', '-passout', 'pass:pw', '-iter', '100000']);
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-a', '64', '-N', 'pw', '-C', 'slow', '-f', 'slow_id']);
  });

  it('reads a PKCS#12 and an encrypted OpenSSH key in a worker (the event loop test is test/pki/costly-key-files)', async () => {
    const [store, key] = await Promise.all([
      readKeyStoreOffLoop(readFileSync(join(dir, 'slow.p12')), 'pw'),
      importSshPrivateKeyOffLoop(readFileSync(join(dir, 'slow_id')), { passphrase: 'pw' }),
    ]);
    expect(store.certPems).toHaveLength(1);
    expect(store.privateKeyPem).toContain('BEGIN PRIVATE KEY');
    expect(key).toMatchObject({ type: 'ed25519', comment: 'slow', encrypted: true });
  });

  it('gives back the domain errors: wrong password, wrong passphrase', async () => {
    await expect(readKeyStoreOffLoop(readFileSync(join(dir, 'slow.p12')), 'nope')).rejects.toEqual(new CertificateError('WRONG_PASSWORD', 'The PKCS#12 password is wrong.'));
    await expect(importSshPrivateKeyOffLoop(readFileSync(join(dir, 'slow_id')), { passphrase: 'nope' })).rejects.toBeInstanceOf(SshKeyError);
  });
});
