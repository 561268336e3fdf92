import { createServer, type Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { boundedFetch } from './bounded-fetch';
import { guardedLookup, guardLookup, refusedAddressReason } from './fetch-address';

describe('revocation fetch address classifier', () => {
  it.each([
    '169.254.169.254', '169.254.0.1', '0.0.0.0', '0.1.2.3', '100.100.100.200', '192.0.0.192', '224.0.0.1', '255.255.255.255',
    'fe80::1', 'FE80::abcd:1%eth0', 'febf::1', 'fd00:ec2::254', '::', 'ff02::1',
    '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::FFFF:0:169.254.169.254', '::169.254.169.254', '64:ff9b::169.254.169.254',
    '64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::1', '::ffff:0.0.0.0', '::ffff:100.100.100.200',
  ])('refuses %s', (address) => {
    expect(refusedAddressReason(address)).toMatch(/link-local, metadata or reserved/);
  });

  it.each([
    '10.0.0.5', '172.16.4.4', '192.168.1.10', '100.64.0.1', '127.0.0.1', '::1', '8.8.8.8', 'fd12:3456::1', '2001:db8::1',
    '::ffff:10.1.2.3', '::ffff:127.0.0.1', '2002:0a00:0001::1', '169.253.255.255', '169.255.0.1',
  ])('allows %s (private ranges and loopback keep working)', (address) => {
    expect(refusedAddressReason(address)).toBeNull();
  });

  it('resolves allowed names as usual', (done) => {
    guardedLookup('localhost', { family: 4 }, (error, address) => {
      expect(error).toBeNull();
      expect(address).toBe('127.0.0.1');
      done();
    });
  });

  it('refuses a name when any address it resolves to is refused', (done) => {
    const lookup = guardLookup((_name, _options, callback) => callback(null, [{ address: '10.0.0.8', family: 4 }, { address: '169.254.169.254', family: 4 }]));
    lookup('metadata.internal.example', {}, (error) => {
      expect(error?.message).toBe('Refused to fetch from metadata.internal.example: 169.254.169.254 is a link-local, metadata or reserved address');
      done();
    });
  });
});

describe('boundedFetch on loopback', () => {
  let server: Server;
  let base: string;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits += 1;
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
      } else if (req.url === '/big') {
        res.end(Buffer.alloc(2048));
      } else {
        res.end('crl-bytes');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  it('fetches from loopback (private ranges work the same way)', async () => {
    expect((await boundedFetch(`${base}/crl`, { timeoutMs: 5000, maxBytes: 1024 })).toString()).toBe('crl-bytes');
    const byName = base.replace('127.0.0.1', 'localhost');
    expect((await boundedFetch(`${byName}/crl`, { timeoutMs: 5000, maxBytes: 1024 })).toString()).toBe('crl-bytes');
  });

  it('follows no redirect, bounds the size, refuses other schemes', async () => {
    await expect(boundedFetch(`${base}/redirect`, { timeoutMs: 5000, maxBytes: 1024 })).rejects.toThrow(`HTTP 302 from ${base}/redirect`);
    await expect(boundedFetch(`${base}/big`, { timeoutMs: 5000, maxBytes: 1024 })).rejects.toThrow('exceeds 1024 bytes');
    await expect(boundedFetch('ftp://127.0.0.1/x.crl', { timeoutMs: 5000, maxBytes: 1024 })).rejects.toThrow('Unsupported URL scheme: ftp:');
    await expect(boundedFetch('file:///etc/passwd', { timeoutMs: 5000, maxBytes: 1024 })).rejects.toThrow('Unsupported URL scheme: file:');
  });

  it('refuses metadata and link-local literals before any connection', async () => {
    const before = hits;
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/x.crl', 'http://[::ffff:169.254.169.254]/', 'http://0.0.0.0:80/', 'http://100.100.100.200/']) {
      await expect(boundedFetch(url, { timeoutMs: 5000, maxBytes: 1024 })).rejects.toThrow(/^Refused to fetch .*link-local, metadata or reserved address$/);
    }
    expect(hits).toBe(before);
  });
});
