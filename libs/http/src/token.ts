import { lookup } from './input-data';
import { ParsedRequest } from './parsed-request';

/**
 * Every token carrier of docs/api/vault.md, "The token": AUTHTOKEN / APP_AUTHTOKEN as header (any case),
 * query parameter or form field, and the pki trailing path segment.
 */
export function extractToken(req: ParsedRequest): string | undefined {
  const candidates = [
    req.headers['authtoken'],
    req.headers['app_authtoken'],
    lookup(req.query as Record<string, unknown>, 'AUTHTOKEN'),
    lookup(req.query as Record<string, unknown>, 'APP_AUTHTOKEN'),
    lookup(req.body, 'AUTHTOKEN'),
    lookup(req.body, 'APP_AUTHTOKEN'),
    req.pathToken,
  ];
  for (const candidate of candidates) {
    const value = Array.isArray(candidate) ? candidate[0] : candidate;
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}

/** The caller's address without the IPv4-mapped prefix. */
export function clientIp(req: ParsedRequest): string {
  const ip = req.socket.remoteAddress ?? '';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}
