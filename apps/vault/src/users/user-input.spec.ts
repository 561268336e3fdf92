import { AppError } from '@app/http';
import { parseExpiryDate, parseHostBinding } from './user-input';

describe('user input', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    ['10.0.0.0/8, 192.168.1.7', '10.0.0.0/8,192.168.1.7'],
    ['::1;fe80::/10', '::1,fe80::/10'],
    ['host.example.com build-01', 'host.example.com,build-01'],
    ['', ''],
    [undefined, ''],
  ])('accepts the host binding %p', (input, stored) => {
    expect(parseHostBinding(input, 'HOSTNAME')).toBe(stored);
  });

  it.each(['10.0.0.0/33', '::/129', 'host_name!', '10.0.0.1/x', 'a/8', '-bad.example'])('refuses the host entry %p by name', (input) => {
    expect(() => parseHostBinding(input, 'ALLOWEDIPADDRESS')).toThrow(/ALLOWEDIPADDRESS: ".*" is not an IP address, CIDR range or host name/);
  });

  const today = new Date(2026, 10, 21);
  it.each([
    ['NeverExpires', null],
    ['neverexpires', null],
    [undefined, null],
    ['2026-11-21', '2026-11-21'],
    ['2030-02-28', '2030-02-28'],
  ])('reads EXPIRYDATE %p', (input, expected) => {
    expect(parseExpiryDate(input, today)).toBe(expected);
  });

  it.each(['2026-02-30', '21-11-2026', '2026/12/01', 'tomorrow', '2026-13-01'])('refuses the malformed EXPIRYDATE %p', (input) => {
    expect(() => parseExpiryDate(input, today)).toThrow('EXPIRYDATE must be a date as yyyy-mm-dd or NeverExpires');
  });

  it('refuses a day already past', () => {
    expect(() => parseExpiryDate('2026-11-20', today)).toThrow(AppError);
  });
});
