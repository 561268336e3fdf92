import { isIP } from 'node:net';
import { AddressError } from './errors';

export interface Target {
  host: string;
  port: number;
}

/** The port of a TLS service when none is given (certificate discovery's default). */
export const DEFAULT_PORT = 443;
/** TIMEOUT is given in seconds by the API. */
export const DEFAULT_TIMEOUT_SECONDS = 5;
export const MAX_TIMEOUT_SECONDS = 60;
/** Upper bound on StartIpAddress..EndIpAddress so one request cannot schedule a /8 scan. */
export const MAX_RANGE_SIZE = 1024;

const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/** Accepts a DNS host name, an IPv4 address or an IPv6 address (optionally in brackets). */
export function parseHost(input: unknown): string {
  const text = String(input ?? '').trim();
  if (!text) throw new AddressError('Host is required');
  const unbracketed = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIP(unbracketed)) return unbracketed;
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  // Digits-and-dots that failed isIP are malformed addresses, not host names.
  if (/^[\d.]+$/.test(name)) throw new AddressError(`Invalid IP address: ${text}`);
  if (name.length > 253 || !name.split('.').every((label) => LABEL.test(label))) {
    throw new AddressError(`Invalid host name: ${text}`);
  }
  return name.toLowerCase();
}

/** Port 1-65535; text numbers are accepted because the API sends form fields. */
export function parsePort(input: unknown, fallback = DEFAULT_PORT): number {
  if (input === undefined || input === null || input === '') return fallback;
  const text = String(input).trim();
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new AddressError(`Invalid port: ${text} (expected 1-65535)`);
  }
  return port;
}

/**
 * TIMEOUT in seconds (default 5, fractions allowed); returns milliseconds. KMP's own sample
 * sends "300": more than MAX_TIMEOUT_SECONDS is not refused but capped per connection (see
 * timeoutCapNote), so one silent address cannot hold a discovery slot for minutes.
 */
export function parseTimeoutSeconds(input: unknown): number {
  if (input === undefined || input === null || input === '') return DEFAULT_TIMEOUT_SECONDS * 1000;
  const text = String(input).trim();
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(seconds > 0)) throw new AddressError(`Invalid timeout: ${text} (expected seconds above 0; more than ${MAX_TIMEOUT_SECONDS} is capped at ${MAX_TIMEOUT_SECONDS})`);
  return Math.round(Math.min(seconds, MAX_TIMEOUT_SECONDS) * 1000);
}

/** What the answer says when TIMEOUT was capped; '' otherwise. Call after parseTimeoutSeconds. */
export function timeoutCapNote(input: unknown): string {
  const seconds = Number(String(input ?? '').trim());
  return seconds > MAX_TIMEOUT_SECONDS ? ` (TIMEOUT ${String(input).trim()} s was capped at ${MAX_TIMEOUT_SECONDS} s per connection)` : '';
}

export function ipv4ToNumber(address: string): number {
  if (isIP(address) !== 4) throw new AddressError(`Invalid IP address: ${address}`);
  return address.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

export function numberToIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** Inclusive IPv4 range expansion, bounded by `max` addresses. */
export function expandIpv4Range(start: unknown, end: unknown, max = MAX_RANGE_SIZE): string[] {
  const first = ipv4ToNumber(String(start ?? '').trim());
  const last = ipv4ToNumber(String(end ?? '').trim());
  if (first > last) throw new AddressError('Start address is after end address');
  const size = last - first + 1;
  if (size > max) throw new AddressError(`Range too large: ${size} addresses (maximum ${max})`);
  return Array.from({ length: size }, (_, i) => numberToIpv4(first + i));
}
