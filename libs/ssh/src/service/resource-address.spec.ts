import { AppError } from '@app/http';
import { parseResourceName } from './resource-address';
import { relativeDays } from './ssh-records';

describe('parseResourceName', () => {
  it.each([
    ['db1.example.com', { host: 'db1.example.com', port: 22, name: 'db1.example.com' }],
    ['DB1.Example.com:22', { host: 'db1.example.com', port: 22, name: 'db1.example.com' }],
    ['10.0.0.5:2222', { host: '10.0.0.5', port: 2222, name: '10.0.0.5:2222' }],
    ['::1', { host: '::1', port: 22, name: '[::1]' }],
    ['[fe80::1]:2200', { host: 'fe80::1', port: 2200, name: '[fe80::1]:2200' }],
    [' 127.0.0.1 ', { host: '127.0.0.1', port: 22, name: '127.0.0.1' }],
  ])('reads %s', (input, expected) => {
    expect(parseResourceName(input)).toEqual(expected);
  });

  it.each([
    ['host:0', 'Invalid port: 0 (expected 1-65535)'],
    ['host:http', 'Invalid port: http (expected 1-65535)'],
    ['10.0.0.300', 'Invalid IP address: 10.0.0.300'],
    ['bad_host!', 'Invalid host name: bad_host!'],
    ['', 'resourceName is required'],
  ])('refuses %s', (input, message) => {
    expect(() => parseResourceName(input)).toThrow(AppError);
    expect(() => parseResourceName(input)).toThrow(message);
  });
});

describe('relativeDays', () => {
  const now = new Date(2026, 10, 21, 9, 30);
  it.each([
    [new Date(2026, 10, 21, 0, 1), 'Today'],
    [new Date(2026, 10, 20, 23, 59), '1 day ago'],
    [new Date(2026, 10, 1, 12, 0), '20 days ago'],
    [new Date(2026, 10, 22, 0, 0), 'Today'],
  ])('%s is %s', (then, text) => {
    expect(relativeDays(then, now)).toBe(text);
  });
});
