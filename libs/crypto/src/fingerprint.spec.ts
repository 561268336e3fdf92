import { randomBytes } from 'node:crypto';
import { fingerprint, FINGERPRINT_LENGTH, fingerprintKey } from './fingerprint';

describe('secret fingerprints', () => {
  const dataKey = randomBytes(32);
  const key = fingerprintKey(dataKey, 'accounts.password');

  it('are equal for equal secrets, name their key version and do not contain the secret', () => {
    const a = fingerprint(key, 3, Buffer.from('s3cret'));
    expect(a.length).toBe(FINGERPRINT_LENGTH);
    expect(a.readUInt32BE(0)).toBe(3);
    expect(a.equals(fingerprint(key, 3, Buffer.from('s3cret')))).toBe(true);
    expect(a.equals(fingerprint(key, 3, Buffer.from('s3cret!')))).toBe(false);
    expect(a.includes(Buffer.from('s3cret'))).toBe(false);
  });

  it('depend on the data key and the context, and the derived key is not the data key', () => {
    const secret = Buffer.from('s3cret');
    const a = fingerprint(key, 1, secret);
    expect(a.equals(fingerprint(fingerprintKey(randomBytes(32), 'accounts.password'), 1, secret))).toBe(false);
    expect(a.equals(fingerprint(fingerprintKey(dataKey, 'other'), 1, secret))).toBe(false);
    expect(key.equals(dataKey)).toBe(false);
  });
});
