import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SshKeyError } from './errors';
import { exportSshPrivateKey, exportSshPublicKey } from './export';
import { importSshPrivateKey } from './import';
import { blobOf, KeyFiles, keygenCreate, keygenFingerprint, keygenPublicFromPrivate } from './ssh-keygen.test-helper';

const KEYGEN_TYPES: [string, string, number][] = [
  ['rsa', 'ssh-rsa', 3072],
  ['dsa', 'ssh-dss', 1024],
  ['ecdsa', 'ecdsa', 256],
  ['ed25519', 'ed25519', 256],
];

describe('importSshPrivateKey and exportSshPrivateKey', () => {
  const files = new KeyFiles();
  afterAll(() => files.cleanup());

  describe.each(KEYGEN_TYPES)('ssh-keygen -t %s', (keygenType, type, length) => {
    describe.each([
      ['OpenSSH', false],
      ['PEM', true],
    ])('%s format', (_label, pem) => {
      describe.each([
        ['without passphrase', ''],
        ['with passphrase', 'secret phrase'],
      ])('%s', (_case, passphrase) => {
        const file = files.path(`${keygenType}-${pem ? 'pem' : 'openssh'}-${passphrase ? 'locked' : 'plain'}`);
        beforeAll(() => keygenCreate(file, keygenType, { passphrase, pem, comment: 'imported@host' }));

        it('imports with the same type, length, public line and fingerprint as ssh-keygen', () => {
          const original = readFileSync(file, 'utf8');
          const key = importSshPrivateKey(readFileSync(file), { passphrase });
          const publicLine = readFileSync(`${file}.pub`, 'utf8').trim();
          // ed25519 has no PEM form in OpenSSH 9.2, so -m PEM still writes OpenSSH format.
          const format = pem && keygenType !== 'ed25519' ? 'pem' : 'openssh';

          expect(key).toMatchObject({ type, length, privateKeyFormat: format, encrypted: Boolean(passphrase), privateKey: original });
          expect(blobOf(key.publicKey)).toBe(blobOf(publicLine));
          expect(key.fingerprint).toBe(keygenFingerprint(`${file}.pub`));
          if (format === 'openssh') expect(key.comment).toBe('imported@host');
        });

        it('exports a private key ssh-keygen opens, re-protected or in the clear', () => {
          const key = importSshPrivateKey(readFileSync(file), { passphrase });
          const same = exportSshPrivateKey(key.privateKey, { passphrase });
          const clear = exportSshPrivateKey(key.privateKey, { passphrase, exportPassphrase: '' });
          const rekeyed = exportSshPrivateKey(key.privateKey, { passphrase, exportPassphrase: 'new phrase' });

          expect(same).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
          expect(blobOf(keygenPublicFromPrivate(files.write(same), passphrase) ?? '')).toBe(blobOf(key.publicKey));
          expect(blobOf(keygenPublicFromPrivate(files.write(clear)) ?? '')).toBe(blobOf(key.publicKey));
          expect(keygenPublicFromPrivate(files.write(rekeyed), passphrase)).toBeNull();
          expect(blobOf(keygenPublicFromPrivate(files.write(rekeyed), 'new phrase') ?? '')).toBe(blobOf(key.publicKey));
        });

        if (passphrase) {
          it.each([
            ['missing', undefined],
            ['empty', ''],
            ['wrong', 'not the phrase'],
          ])('refuses a %s passphrase', (_what, given) => {
            expect(() => importSshPrivateKey(readFileSync(file), { passphrase: given })).toThrow(
              new SshKeyError('wrong_passphrase', 'The passphrase is wrong or missing for this key'),
            );
          });
        }
      });
    });
  });

  it('imports PKCS#8 PEM, encrypted or not, and keeps the caller comment', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const plain = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const locked = privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'p8 pass' }) as string;

    const fromPlain = importSshPrivateKey(Buffer.from(plain), { comment: 'web-01' });
    const fromLocked = importSshPrivateKey(locked, { passphrase: 'p8 pass' });

    expect(fromPlain).toMatchObject({ type: 'ecdsa', length: 384, algorithm: 'ecdsa-sha2-nistp384', comment: 'web-01', encrypted: false });
    expect(fromLocked).toMatchObject({ fingerprint: fromPlain.fingerprint, encrypted: true });
    expect(() => importSshPrivateKey(locked, { passphrase: 'nope' })).toThrow('The passphrase is wrong or missing for this key');
  });

  it.each([
    ['plain text', Buffer.from('hello, this is not a key\n')],
    ['random bytes', Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7919) % 256))],
    ['empty', Buffer.alloc(0)],
    ['a public key', Buffer.from('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBHl3g2Z2S3sW2qzUSn4cmxwMyVDE1wDfGQkVyG0U0cy me@host\n')],
    ['a truncated key', Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\n')],
    ['a PEM certificate-looking block', Buffer.from('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')],
  ])('refuses %s as not an SSH private key', (_what, file) => {
    expect(() => importSshPrivateKey(file)).toThrow(new SshKeyError('not_a_private_key', 'The file is not an SSH private key'));
  });

  it('refuses non-SSH key types such as X25519', () => {
    const { privateKey } = generateKeyPairSync('x25519');
    expect(() => importSshPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string)).toThrow('The file is not an SSH private key');
  });

  it('exports the public key as a .pub file line', () => {
    expect(exportSshPublicKey({ publicKey: 'ssh-ed25519 AAAA c' })).toBe('ssh-ed25519 AAAA c\n');
  });
});
