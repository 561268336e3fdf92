import { BlockList, isIP } from 'node:net';
import { AcmeProblem, malformed } from './problem';

export interface Identifier {
  type: 'dns' | 'ip';
  value: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_IDENTIFIERS = 100;

/** newOrder's identifiers: DNS names (lower case, no trailing dot) and IP addresses (RFC 8738), de-duplicated. */
export function parseIdentifiers(value: unknown): Identifier[] {
  if (!Array.isArray(value) || value.length === 0) throw malformed('identifiers must be a non-empty array');
  if (value.length > MAX_IDENTIFIERS) throw malformed(`An order may name at most ${MAX_IDENTIFIERS} identifiers`);
  const seen = new Map<string, Identifier>();
  for (const item of value) {
    const id = parseIdentifier(item);
    seen.set(`${id.type}:${id.value}`, id);
  }
  return [...seen.values()];
}

export function parseIdentifier(item: unknown): Identifier {
  const { type, value } = (item ?? {}) as { type?: unknown; value?: unknown };
  if (typeof value !== 'string' || !value) throw malformed('Each identifier needs a type and a value');
  if (type === 'ip') {
    const ip = canonicalIp(value);
    if (!ip) throw new AcmeProblem('malformed', `"${value}" is not an IP address`);
    return { type: 'ip', value: ip };
  }
  if (type !== 'dns') throw new AcmeProblem('unsupportedIdentifier', `Identifier type ${String(type)} is not supported; use dns or ip`);
  const name = value.toLowerCase().replace(/\.$/, '');
  if (name.startsWith('*.')) {
    throw new AcmeProblem('rejectedIdentifier', `Wildcard names need the dns-01 challenge, which this server does not offer: ${value}`, 400, {
      type,
      value,
    });
  }
  // Older clients (lego before RFC 8738 support) send addresses as dns identifiers.
  if (isIP(name)) return { type: 'ip', value: canonicalIp(name)! };
  if (name.length > 253 || !name.split('.').every((l) => LABEL.test(l))) throw malformed(`"${value}" is not a valid DNS name`);
  return { type: 'dns', value: name };
}

/** IPv4 dotted quad or IPv6 in its canonical (RFC 5952) text form; undefined when not an address. */
export function canonicalIp(text: string): string | undefined {
  const v = isIP(text);
  if (v === 4) return text;
  if (v === 6) return new URL(`http://[${text}]`).hostname.slice(1, -1);
  return undefined;
}

/**
 * The allowed-domains setting of a CA: `example.com` allows that name only; `*.example.com`
 * allows every name below example.com (not example.com itself); an IP address or CIDR block
 * (`127.0.0.0/8`, `2001:db8::/32`) allows those addresses. An empty list allows nothing.
 */
export function isAllowed(id: Identifier, allowed: string[]): boolean {
  if (id.type === 'ip') {
    const list = new BlockList();
    for (const entry of allowed) {
      const [address, bits] = entry.split('/');
      const family = isIP(address);
      if (!family) continue;
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (bits === undefined) list.addAddress(address, type);
      else list.addSubnet(address, Number(bits), type);
    }
    return list.check(id.value, isIP(id.value) === 4 ? 'ipv4' : 'ipv6');
  }
  return allowed.some((entry) => {
    const e = entry.toLowerCase();
    return e.startsWith('*.') ? id.value.endsWith(e.slice(1)) : id.value === e;
  });
}

/** Checks and normalises an allowed-names list as an operator types it (`*` too); throws a message naming the bad entry. */
export function parseAllowedDomains(entries: string[]): string[] {
  const out: string[] = [];
  for (const raw of entries.map((e) => e.trim()).filter(Boolean)) {
    // Any name, for signCSR only: isAllowed matches no ACME identifier with it.
    if (raw === '*') {
      out.push(raw);
      continue;
    }
    // An exact subject attribute a server-wide CA may certify for the organisation (O=Example Corp, OU=..., E=...).
    const rule = /^([A-Za-z][A-Za-z0-9]*|\d+(?:\.\d+)+)=(.+)$/.exec(raw);
    if (rule) {
      if (rule[1].toUpperCase() === 'CN') throw new Error(`Allowed domain "${raw}": a common name is allowed as a DNS name, not as CN=`);
      out.push(`${rule[1].toUpperCase()}=${rule[2].trim()}`);
      continue;
    }
    const [address, bits] = raw.split('/');
    const family = isIP(address);
    if (family) {
      const max = family === 4 ? 32 : 128;
      if (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max)) throw new Error(`Bad CIDR prefix in allowed domain ${raw}`);
      out.push(raw);
      continue;
    }
    const name = raw.toLowerCase().replace(/\.$/, '');
    const bare = name.startsWith('*.') ? name.slice(2) : name;
    if (!bare.split('.').every((l) => LABEL.test(l))) throw new Error(`Allowed domain "${raw}" is not a DNS name, *.domain, IP address or CIDR block`);
    out.push(name);
  }
  return [...new Set(out)];
}

/** The names a CSR asks for (its SANs and a DNS-looking common name), as identifiers. */
export function csrIdentifiers(commonName: string, sans: { type: string; value: string }[]): Identifier[] {
  const ids = new Map<string, Identifier>();
  const add = (type: 'dns' | 'ip', value: string) => {
    // An address in a dNSName (older clients) is taken as the address it names.
    const ip = canonicalIp(value);
    if (ip) ids.set(`ip:${ip}`, { type: 'ip', value: ip });
    else if (type === 'dns') ids.set(`dns:${value.toLowerCase().replace(/\.$/, '')}`, { type, value: value.toLowerCase().replace(/\.$/, '') });
  };
  for (const s of sans) {
    if (s.type === 'dns' || s.type === 'ip') add(s.type, s.value);
    else throw new AcmeProblem('badCSR', `The CSR asks for a ${s.type} name, which ACME cannot validate`);
  }
  if (commonName) add(isIP(commonName) ? 'ip' : 'dns', commonName);
  return [...ids.values()];
}

/** RFC 8555 §7.4: the CSR must name exactly the order's identifiers. */
export function sameIdentifiers(a: Identifier[], b: Identifier[]): boolean {
  const key = (ids: Identifier[]) => ids.map((i) => `${i.type}:${i.value}`).sort().join(',');
  return key(a) === key(b);
}
