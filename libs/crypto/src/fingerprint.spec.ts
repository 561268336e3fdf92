import { randomBytes } from 'node:crypto';
import { fingerprint, FINGERPRINT_LENGTH, fingerprintKey } from './fingerprint';

describe('secret fingerprints', () => {
  const dataKey = randomBytes(32);
  const key = fingerprintKey(dataKey, 'accounts.password');
  const secret = Buffer.from('s3cret');

  it('are equal for equal secrets of one subject, name their key version and do not contain the secret', () => {
    const a = fingerprint(key, 3, 42, secret);
    expect(a.length).toBe(FINGERPRINT_LENGTH);
    expect(a.readUInt32BE(0)).toBe(3);
    expect(a.equals(fingerprint(key, 3, 42, Buffer.from('s3cret')))).toBe(true);
    expect(a.equals(fingerprint(key, 3, 42, Buffer.from('s3cret!')))).toBe(false);
    expect(a.includes(secret)).toBe(false);
  });

  it('differ between subjects, data keys and contexts; the derived key is not the data key', () => {
    const a = fingerprint(key, 1, 42, secret);
    expect(a.equals(fingerprint(key, 1, 43, secret))).toBe(false);
    expect(a.equals(fingerprint(fingerprintKey(randomBytes(32), 'accounts.password'), 1, 42, secret))).toBe(false);
    expect(a.equals(fingerprint(fingerprintKey(dataKey, 'other'), 1, 42, secret))).toBe(false);
    expect(key.equals(dataKey)).toBe(false);
  });

  it('refuses a subject that is not an id', () => {
    expect(() => fingerprint(key, 1, -1, secret)).toThrow();
    expect(() => fingerprint(key, 1, 1.5, secret)).toThrow();
  });
});
