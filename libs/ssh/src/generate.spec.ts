import { SshKeyError } from './errors';
import { generateSshKey } from './generate';
import { blobOf, KeyFiles, keygenFingerprint, keygenPublicFromPrivate } from './ssh-keygen.test-helper';

const SPECS: [string, number, string][] = [
  ['ssh-rsa', 1024, 'ssh-rsa'],
  ['ssh-rsa', 2048, 'ssh-rsa'],
  ['ssh-rsa', 4096, 'ssh-rsa'],
  ['ssh-dss', 1024, 'ssh-dss'],
  ['ed25519', 256, 'ssh-ed25519'],
  ['ecdsa', 256, 'ecdsa-sha2-nistp256'],
  ['ecdsa', 384, 'ecdsa-sha2-nistp384'],
  ['ecdsa', 521, 'ecdsa-sha2-nistp521'],
];

describe('generateSshKey', () => {
  const files = new KeyFiles();
  afterAll(() => files.cleanup());

  describe.each(SPECS)('%s %d', (type, length, algorithm) => {
    it('produces a key whose fingerprint and private key agree with ssh-keygen', async () => {
      const key = await generateSshKey({ type, length, comment: 'ops@vault' });

      expect(key).toMatchObject({ type, length, algorithm, comment: 'ops@vault', privateKeyFormat: 'openssh', encrypted: false });
      expect(key.publicKey).toMatch(new RegExp(`^${algorithm} AAAA[A-Za-z0-9+/]+=* ops@vault$`));
      expect(key.fingerprint).toBe(keygenFingerprint(files.write(`${key.publicKey}\n`)));
      expect(key.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
      expect(blobOf(keygenPublicFromPrivate(files.write(key.privateKey)) ?? '')).toBe(blobOf(key.publicKey));
    });

    it('encrypts the private key with a passphrase that ssh-keygen accepts', async () => {
      const key = await generateSshKey({ type, length, passphrase: 'correct horse' });
      const file = files.write(key.privateKey);

      expect(key.encrypted).toBe(true);
      expect(keygenPublicFromPrivate(file, '')).toBeNull();
      expect(keygenPublicFromPrivate(file, 'wrong horse')).toBeNull();
      expect(blobOf(keygenPublicFromPrivate(file, 'correct horse') ?? '')).toBe(blobOf(key.publicKey));
    });

    if (type !== 'ed25519') {
      it('writes PEM that ssh-keygen opens, with and without passphrase', async () => {
        const plain = await generateSshKey({ type, length, format: 'pem' });
        const locked = await generateSshKey({ type, length, format: 'pem', passphrase: 'pem pass' });

        expect(plain.privateKey).toMatch(/^-----BEGIN (RSA |EC )?PRIVATE KEY-----/);
        expect(blobOf(keygenPublicFromPrivate(files.write(plain.privateKey)) ?? '')).toBe(blobOf(plain.publicKey));
        expect(blobOf(keygenPublicFromPrivate(files.write(locked.privateKey), 'pem pass') ?? '')).toBe(blobOf(locked.publicKey));
      });
    }
  });

  it('refuses PEM for ed25519, which OpenSSH before 9.6 cannot read', async () => {
    await expect(generateSshKey({ type: 'ed25519', format: 'pem' })).rejects.toThrow(SshKeyError);
  });

  it('refuses an unsupported type/length with the allowed list', async () => {
    await expect(generateSshKey({ type: 'ssh-rsa', length: 3072 })).rejects.toThrow(
      'Invalid key type/length. Allowed: ssh-rsa (1024, 2048, 4096), ssh-dss (1024), ed25519, ecdsa (256, 384, 521)',
    );
  });

  it('refuses a comment with a line break', async () => {
    await expect(generateSshKey({ type: 'ed25519', comment: 'a\nssh-rsa AAAA injected' })).rejects.toMatchObject({ code: 'invalid_comment' });
  });

  it('never puts the passphrase in the output besides the encrypted key', async () => {
    const key = await generateSshKey({ type: 'ed25519', passphrase: 'visible-secret' });
    expect(JSON.stringify(key)).not.toContain('visible-secret');
  });
});
