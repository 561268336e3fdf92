import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * A user bound to hosts (HOSTNAME / ALLOWEDIPADDRESS: addresses, CIDR ranges or host
 * names, comma separated) may only call from one of them. Empty = anywhere.
 */
export async function isHostAllowed(allowed: string, ip: string): Promise<boolean> {
  const entries = allowed
    .split(/[,;\s]+/)
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) return true;
  const list = new BlockList();
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    if (isIP(address)) {
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits !== undefined) list.addSubnet(address, Number(bits), type);
      else list.addAddress(address, type);
    } else {
      for (const resolved of await resolveHost(entry)) list.addAddress(resolved.address, resolved.family === 6 ? 'ipv6' : 'ipv4');
    }
  }
  if (list.check(ip, family)) return true;
  // 127.0.0.1 and ::1 are the same machine.
  if (ip === '::1') return list.check('127.0.0.1', 'ipv4');
  if (ip === '127.0.0.1') return list.check('::1', 'ipv6');
  return false;
}

const cache = new Map<string, { at: number; addresses: { address: string; family: number }[] }>();

async function resolveHost(host: string): Promise<{ address: string; family: number }[]> {
  const hit = cache.get(host);
  if (hit && Date.now() - hit.at < 60_000) return hit.addresses;
  const addresses = await lookup(host, { all: true }).catch(() => []);
  cache.set(host, { at: Date.now(), addresses });
  return addresses;
}

export function isValidHostEntry(entry: string): boolean {
  const [address, bits] = entry.split('/');
  if (isIP(address)) {
    if (bits === undefined) return true;
    const max = isIP(address) === 6 ? 128 : 32;
    return /^\d+$/.test(bits) && Number(bits) <= max;
  }
  return bits === undefined && /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$/.test(address);
}
