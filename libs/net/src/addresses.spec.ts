import { AddressError } from './errors';
import { expandIpv4Range, parseHost, parsePort, parseTimeoutSeconds, timeoutCapNote } from './addresses';

describe('parseHost', () => {
  it.each([
    ['example.com', 'example.com'],
    ['Mail.Example.COM.', 'mail.example.com'],
    ['localhost', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['[fe80::1]', 'fe80::1'],
  ])('accepts %s', (input, expected) => expect(parseHost(input)).toBe(expected));

  it.each([
    ['256.1.1.1', 'Invalid IP address: 256.1.1.1'],
    ['10.0.0', 'Invalid IP address: 10.0.0'],
    ['-bad.example', 'Invalid host name: -bad.example'],
    ['under_score.example', 'Invalid host name: under_score.example'],
    ['a..b', 'Invalid host name: a..b'],
    ['', 'Host is required'],
  ])('rejects %p', (input, message) => {
    expect(() => parseHost(input)).toThrow(new AddressError(message));
  });
});

describe('parsePort', () => {
  it('accepts numbers and text numbers, defaults when absent', () => {
    expect(parsePort(8443)).toBe(8443);
    expect(parsePort(' 443 ')).toBe(443);
    expect(parsePort('')).toBe(443);
    expect(parsePort(undefined, 8443)).toBe(8443);
  });

  it.each(['0', '65536', '-1', '44.3', 'abc', '1e3'])('rejects %p', (input) => {
    expect(() => parsePort(input)).toThrow(`Invalid port: ${input} (expected 1-65535)`);
  });
});

describe('parseTimeoutSeconds', () => {
  it('reads seconds and returns milliseconds, default 5 s', () => {
    expect(parseTimeoutSeconds(undefined)).toBe(5000);
    expect(parseTimeoutSeconds('10')).toBe(10_000);
    expect(parseTimeoutSeconds(0.5)).toBe(500);
    expect(parseTimeoutSeconds('60')).toBe(60_000);
  });

  it('caps more than 60 s at 60 s per connection (KMP sends "300"), and says so', () => {
    expect(parseTimeoutSeconds('300')).toBe(60_000);
    expect(parseTimeoutSeconds(61)).toBe(60_000);
    expect(timeoutCapNote('300')).toBe(' (TIMEOUT 300 s was capped at 60 s per connection)');
    expect(timeoutCapNote('60')).toBe('');
    expect(timeoutCapNote(undefined)).toBe('');
  });

  it.each(['0', '-3', 'soon'])('rejects %p', (input) => {
    expect(() => parseTimeoutSeconds(input)).toThrow(AddressError);
  });
});

describe('expandIpv4Range', () => {
  it('expands inclusively across octet boundaries', () => {
    expect(expandIpv4Range('10.0.0.254', '10.0.1.1')).toEqual(['10.0.0.254', '10.0.0.255', '10.0.1.0', '10.0.1.1']);
    expect(expandIpv4Range('127.0.0.9', '127.0.0.9')).toEqual(['127.0.0.9']);
  });

  it('allows exactly the maximum and refuses one more', () => {
    expect(expandIpv4Range('10.0.0.0', '10.0.3.255')).toHaveLength(1024);
    expect(() => expandIpv4Range('10.0.0.0', '10.0.4.0')).toThrow('Range too large: 1025 addresses (maximum 1024)');
  });

  it('reports bad addresses and reversed ranges', () => {
    expect(() => expandIpv4Range('10.0.0.300', '10.0.1.1')).toThrow('Invalid IP address: 10.0.0.300');
    expect(() => expandIpv4Range('10.0.0.1', '::1')).toThrow('Invalid IP address: ::1');
    expect(() => expandIpv4Range('10.0.0.2', '10.0.0.1')).toThrow('Start address is after end address');
  });
});
