import { retryDelaySeconds, signRotationEvent, verifyRotationEvent } from './rotation-webhook';

describe('rotation webhook signature', () => {
  const body = JSON.stringify({ event: 'password.rotated', accountId: 7 });
  it('verifies what it signed, and nothing else', () => {
    const header = signRotationEvent('s3cret-s3cret-s3cret', body, 1_800_000_000);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifyRotationEvent('s3cret-s3cret-s3cret', body, header, 1_800_000_010)).toBe(true);
    expect(verifyRotationEvent('s3cret-s3cret-s3cret', body + ' ', header, 1_800_000_010)).toBe(false);
    expect(verifyRotationEvent('another-secret-xx', body, header, 1_800_000_010)).toBe(false);
    expect(verifyRotationEvent('s3cret-s3cret-s3cret', body, header, 1_800_001_000)).toBe(false);
    expect(verifyRotationEvent('s3cret-s3cret-s3cret', body, header.replace('t=1800000000', 't=1800000001'), 1_800_000_010)).toBe(false);
  });
  it('backs off from 5 s to an hour', () => {
    expect([0, 1, 2, 10, 40].map(retryDelaySeconds)).toEqual([5, 10, 20, 3600, 3600]);
  });
});
