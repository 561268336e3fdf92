import { csrIdentifiers, isAllowed, parseAllowedDomains, parseIdentifiers, sameIdentifiers } from './identifiers';

describe('ACME identifiers', () => {
  it('normalises DNS names and IP addresses, refuses wildcards and bad names', () => {
    expect(parseIdentifiers([{ type: 'dns', value: 'WWW.Example.com.' }, { type: 'ip', value: '2001:DB8:0:0::1' }, { type: 'dns', value: 'www.example.com' }])).toEqual([
      { type: 'dns', value: 'www.example.com' },
      { type: 'ip', value: '2001:db8::1' },
    ]);
    expect(parseIdentifiers([{ type: 'dns', value: '127.0.0.1' }])).toEqual([{ type: 'ip', value: '127.0.0.1' }]);
    expect(() => parseIdentifiers([{ type: 'dns', value: '*.example.com' }])).toThrow(/dns-01/);
    expect(() => parseIdentifiers([{ type: 'dns', value: 'bad_name.com' }])).toThrow(/not a valid DNS name/);
    expect(() => parseIdentifiers([{ type: 'email', value: 'a@b.c' }])).toThrow(/not supported/);
    expect(() => parseIdentifiers([])).toThrow(/non-empty/);
  });

  it('allowed domains: exact names, *.suffix for names below it, addresses and CIDR blocks', () => {
    const allowed = parseAllowedDomains(['example.com', '*.Internal.Example.com', '10.0.0.0/8', '2001:db8::/32', '']);
    expect(allowed).toEqual(['example.com', '*.internal.example.com', '10.0.0.0/8', '2001:db8::/32']);
    const ok = (type: 'dns' | 'ip', value: string) => isAllowed({ type, value }, allowed);
    expect(ok('dns', 'example.com')).toBe(true);
    expect(ok('dns', 'www.example.com')).toBe(false);
    expect(ok('dns', 'a.b.internal.example.com')).toBe(true);
    expect(ok('dns', 'internal.example.com')).toBe(false);
    expect(ok('dns', 'evilinternal.example.com')).toBe(false);
    expect(ok('ip', '10.1.2.3')).toBe(true);
    expect(ok('ip', '11.1.2.3')).toBe(false);
    expect(ok('ip', '2001:db8::5')).toBe(true);
    expect(isAllowed({ type: 'dns', value: 'example.com' }, [])).toBe(false);
    expect(() => parseAllowedDomains(['10.0.0.0/33'])).toThrow(/CIDR/);
    expect(() => parseAllowedDomains(['bad domain'])).toThrow(/bad domain/);
  });

  it('a CSR must name exactly the order identifiers (common name included)', () => {
    const order = [
      { type: 'dns' as const, value: 'a.example.com' },
      { type: 'ip' as const, value: '127.0.0.1' },
    ];
    const csr = csrIdentifiers('a.example.com', [{ type: 'ip', value: '127.0.0.1' }, { type: 'dns', value: 'A.example.com' }]);
    expect(sameIdentifiers(csr, order)).toBe(true);
    expect(sameIdentifiers(csrIdentifiers('b.example.com', [{ type: 'dns', value: 'a.example.com' }, { type: 'ip', value: '127.0.0.1' }]), order)).toBe(false);
    expect(() => csrIdentifiers('', [{ type: 'email', value: 'x@y.z' }])).toThrow(/email/);
  });
});
