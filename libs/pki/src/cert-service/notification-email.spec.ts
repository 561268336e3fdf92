import { notificationEmails } from './notification-email';

describe('notificationEmails', () => {
  it('normalises the separators and keeps the order', () => {
    expect(notificationEmails(' ops@example.com; pki@example.org  sec@example.net ')).toBe('ops@example.com, pki@example.org, sec@example.net');
    expect(notificationEmails(undefined)).toBe('');
    expect(notificationEmails('  ')).toBe('');
  });

  it('names the address that is wrong', () => {
    expect(() => notificationEmails('ops@example.com, not-an-address')).toThrow('Email: "not-an-address" is not an email address');
    expect(() => notificationEmails('a@b')).toThrow('is not an email address');
    expect(() => notificationEmails(Array.from({ length: 11 }, (_, i) => `u${i}@example.com`).join(','))).toThrow('at most 10 addresses');
  });
});
