import { pkiTime } from './pki-time';

describe('pkiTime', () => {
  it('formats as Mon dd, yyyy hh:mm in the server time zone, 24-hour', () => {
    expect(pkiTime(new Date(2026, 2, 5, 14, 7, 59))).toBe('Mar 05, 2026 14:07');
    expect(pkiTime(new Date(2025, 11, 31, 0, 0))).toBe('Dec 31, 2025 00:00');
  });
});
