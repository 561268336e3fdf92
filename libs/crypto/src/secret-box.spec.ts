import { randomBytes } from 'node:crypto';
import { open, seal, SealError, sealedKeyVersion, unwrapKey, wrapKey } from './secret-box';
import { hashToken, newApiToken } from './tokens';

describe('secret box', () => {
  const key = randomBytes(32);

  it('round-trips and records the key version', () => {
    const blob = seal(key, 7, Buffer.from('s3cret'), 'accounts');
    expect(sealedKeyVersion(blob)).toBe(7);
    expect(open(key, blob, 'accounts').toString()).toBe('s3cret');
    expect(blob.includes(Buffer.from('s3cret'))).toBe(false);
  });

  it('gives every sealing its own IV, across refills of the IV block', () => {
    const ivs = new Set(Array.from({ length: 2000 }, () => seal(key, 1, Buffer.from('x')).subarray(5, 17).toString('hex')));
    expect(ivs.size).toBe(2000);
    expect([...ivs].every((iv) => iv.length === 24 && iv !== '0'.repeat(24))).toBe(true);
  });

  it('refuses a tampered blob, another key or another context', () => {
    const blob = seal(key, 1, Buffer.from('s3cret'), 'accounts');
    const tampered = Buffer.from(blob);
    tampered[tampered.length - 1] ^= 1;
    expect(() => open(key, tampered, 'accounts')).toThrow(SealError);
    expect(() => open(randomBytes(32), blob, 'accounts')).toThrow(SealError);
    expect(() => open(key, blob, 'ssh_keys')).toThrow(SealError);
  });

  it('wraps data keys under a master key', () => {
    const master = randomBytes(32);
    expect(unwrapKey(master, wrapKey(master, key)).equals(key)).toBe(true);
  });

  it('makes 256-bit tokens and hashes them with SHA-256', () => {
    const token = newApiToken();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toHaveLength(32);
  });
});
