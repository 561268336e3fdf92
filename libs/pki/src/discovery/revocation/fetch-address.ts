import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where a revocation fetch (CRL, OCSP) may not connect: the URL comes from a scanned,
 * untrusted certificate. Link-local and cloud metadata addresses are refused; private
 * ranges stay allowed (on premises that is where the CRL servers are), and so does loopback.
 */
const REFUSED = new BlockList();
REFUSED.addSubnet('0.0.0.0', 8, 'ipv4'); // "this network"; 0.0.0.0 reaches the local host
REFUSED.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, incl. 169.254.169.254 metadata
REFUSED.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
REFUSED.addAddress('192.0.0.192', 'ipv4'); // Oracle Cloud metadata
REFUSED.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
REFUSED.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved, broadcast
REFUSED.addAddress('::', 'ipv6'); // unspecified
REFUSED.addSubnet('fe80::', 10, 'ipv6'); // link-local
REFUSED.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
REFUSED.addSubnet('ff00::', 8, 'ipv6'); // multicast

/** The IPv4 address an IPv6 form carries (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:(?:0:)?|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const groups = expandIpv6(lower);
  if (!groups) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6], groups[7]); // ::ffff:a.b.c.d
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return v4(groups[6], groups[7]); // ::ffff:0:a.b.c.d
  if (zeros(0, 6) && (groups[6] !== 0 || groups[7] > 1)) return v4(groups[6], groups[7]); // ::a.b.c.d
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6], groups[7]); // NAT64
  if (groups[0] === 0x2002) return v4(groups[1], groups[2]); // 6to4
  return undefined;
}

/** Eight 16-bit groups, or undefined when the text is not an IPv6 address. */
function expandIpv6(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const part = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '').map((g) => parseInt(g, 16)) : []);
  const front = part(head);
  const back = part(tail);
  const fill = tail === undefined ? [] : new Array(8 - front.length - back.length).fill(0);
  const groups = [...front, ...fill, ...back];
  return groups.length === 8 ? groups : undefined;
}

/** Why a fetch may not connect to this address, or null when it may. */
export function refusedAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const v4 = family === 6 ? embeddedIpv4(address) : address;
  if (v4 && REFUSED.check(v4, 'ipv4')) return `${address} is a link-local, metadata or reserved address`;
  if (family === 6 && REFUSED.check(address.split('%')[0], 'ipv6')) return `${address} is a link-local, metadata or reserved address`;
  return null;
}

export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

type BaseLookup = (hostname: string, options: { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: Array<{ address: string; family: number }>) => void) => void;

/**
 * DNS resolution for the fetch's socket that refuses a name resolving to a refused
 * address: checked when connecting, so a name cannot point elsewhere after a check.
 */
export function guardLookup(base: BaseLookup): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (error, list) => {
      if (error) return callback(error, '', 0);
      const refused = list.map((a) => refusedAddressReason(a.address)).find((reason) => reason !== null);
      if (refused) return callback(new RefusedAddressError(`Refused to fetch from ${hostname}: ${refused}`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

export const guardedLookup = guardLookup(dnsLookup as unknown as BaseLookup);
