import { isIP } from 'node:net';
import { AppError } from '@app/http';
import { parseHost, parsePort } from '@app/net';
import { toAppError } from './ssh-errors';

export const DEFAULT_SSH_PORT = 22;

/** Where an SSH resource is, and the name it is known by. */
export interface ResourceAddress {
  host: string;
  port: number;
  /** `host` on port 22, `host:port` otherwise (IPv6 in brackets): one name per endpoint. */
  name: string;
}

/** `resourceName` as clients send it: a host name or address, optionally `:port`. */
export function parseResourceName(input: string): ResourceAddress {
  const text = input.trim();
  if (!text) throw AppError.invalid('resourceName is required');
  try {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
    if (bracketed) return addressOf(parseHost(bracketed[1]), parsePort(bracketed[2], DEFAULT_SSH_PORT));
    // A bare IPv6 address has several colons and no port.
    if (isIP(text) === 6) return addressOf(parseHost(text), DEFAULT_SSH_PORT);
    const colon = text.lastIndexOf(':');
    if (colon === -1) return addressOf(parseHost(text), DEFAULT_SSH_PORT);
    return addressOf(parseHost(text.slice(0, colon)), parsePort(text.slice(colon + 1), DEFAULT_SSH_PORT));
  } catch (error) {
    throw toAppError(error);
  }
}

export function addressOf(host: string, port: number): ResourceAddress {
  const label = host.includes(':') ? `[${host}]` : host;
  return { host, port, name: port === DEFAULT_SSH_PORT ? label : `${label}:${port}` };
}
