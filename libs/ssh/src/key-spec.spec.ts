import { SshKeyError } from './errors';
import { normalizeKeySpec } from './key-spec';

const ALLOWED = 'Invalid key type/length. Allowed: ssh-rsa (1024, 2048, 4096), ssh-dss (1024), ed25519, ecdsa (256, 384, 521)';

describe('normalizeKeySpec', () => {
  it.each([
    ['ssh-rsa', 2048, 'ssh-rsa', 2048],
    ['RSA', '4096', 'ssh-rsa', 4096],
    ['rsa', undefined, 'ssh-rsa', 2048],
    ['ssh-dss', 1024, 'ssh-dss', 1024],
    ['DSA', '', 'ssh-dss', 1024],
    ['ed25519', undefined, 'ed25519', 256],
    ['SSH-ED25519', '2048', 'ed25519', 256],
    ['ecdsa', 384, 'ecdsa', 384],
    ['ecdsa-sha2-nistp521', undefined, 'ecdsa', 521],
    ['ECDSA-SHA2-NISTP256', '256', 'ecdsa', 256],
  ])('accepts %s / %s', (type, length, expectedType, expectedLength) => {
    expect(normalizeKeySpec(type, length)).toEqual({ type: expectedType, length: expectedLength });
  });

  it.each([
    ['ssh-rsa', 512],
    ['ssh-rsa', 3072],
    ['ssh-dss', 2048],
    ['ecdsa', 224],
    ['ecdsa-sha2-nistp256', 384],
    ['rsa', 'big'],
    ['x25519', undefined],
    ['', undefined],
    [undefined, 2048],
    // Keys every plain object has: not key types.
    ['constructor', undefined],
    ['__proto__', 2048],
  ])('refuses %s / %s with the allowed list', (type, length) => {
    expect(() => normalizeKeySpec(type, length)).toThrow(new SshKeyError('invalid_key_spec', ALLOWED));
  });
});
