import { newTotpSecret, totpCode, totpStep, totpUri } from './totp';

describe('TOTP (RFC 6238)', () => {
  it('matches the RFC 6238 SHA-1 test vector', () => {
    // RFC 6238 appendix B: secret "12345678901234567890", T = 59 s, 8 digits 94287082; 6 digits are its last six.
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(totpCode(secret, 59_000)).toBe('287082');
    expect(totpStep(secret, '287082', 59_000)).toBe(1);
  });

  it('accepts a code one step either side, not two, and nothing but six digits', () => {
    const secret = newTotpSecret();
    const now = 1_800_000_000_000;
    const step = Math.floor(now / 30_000);
    expect(totpStep(secret, totpCode(secret, now - 30_000), now)).toBe(step - 1);
    expect(totpStep(secret, totpCode(secret, now + 30_000), now)).toBe(step + 1);
    expect(totpStep(secret, totpCode(secret, now - 90_000), now)).toBeUndefined();
    expect(totpStep(secret, 'abcdef', now)).toBeUndefined();
    expect(totpUri(secret, 'alice')).toMatch(/^otpauth:\/\/totp\/Credential%20Vault:alice\?issuer=Credential%20Vault&secret=[A-Z2-7]+/);
  });
});
