import { createHash } from 'node:crypto';
import { isIPv4 } from 'node:net';
import {
  childElements,
  DER_NULL,
  DER_TRUE,
  objectIdentifier,
  octetString,
  readElement,
  sequence,
  tlv,
  unsignedInteger,
} from './der-writer';
import { SanEntry } from './subject';

// X.509 v3 extensions as DER (Extension ::= SEQUENCE { extnID, critical, extnValue }).

export const EXTENSION_OIDS = {
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  crlNumber: '2.5.29.20',
  reasonCode: '2.5.29.21',
  crlDistributionPoints: '2.5.29.31',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  ocspNoCheck: '1.3.6.1.5.5.7.48.1.5',
} as const;

const ACCESS_METHODS = { ocsp: '1.3.6.1.5.5.7.48.1', caIssuers: '1.3.6.1.5.5.7.48.2' } as const;

export const EKU_OIDS = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  codeSigning: '1.3.6.1.5.5.7.3.3',
  ocspSigning: '1.3.6.1.5.5.7.3.9',
} as const;

/** Bit positions of KeyUsage (RFC 5280 §4.2.1.3). */
export const KEY_USAGE = {
  digitalSignature: 0,
  nonRepudiation: 1,
  keyEncipherment: 2,
  dataEncipherment: 3,
  keyAgreement: 4,
  keyCertSign: 5,
  cRLSign: 6,
} as const;

export type KeyUsageName = keyof typeof KEY_USAGE;

export function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? sequence(objectIdentifier(oid), DER_TRUE, octetString(value))
    : sequence(objectIdentifier(oid), octetString(value));
}

export function basicConstraints(ca: boolean, pathLength?: number): Buffer {
  const items = ca ? [DER_TRUE] : [];
  if (ca && pathLength !== undefined) items.push(unsignedInteger(Buffer.from([pathLength])));
  return extension(EXTENSION_OIDS.basicConstraints, true, sequence(...items));
}

export function keyUsage(usages: KeyUsageName[]): Buffer {
  const bytes = [0, 0];
  for (const name of usages) {
    const bit = KEY_USAGE[name];
    bytes[bit >> 3] |= 0x80 >> (bit & 7);
  }
  const used = bytes[1] ? bytes : bytes.slice(0, 1);
  const last = used[used.length - 1];
  let unused = 0;
  while (unused < 7 && !(last & (1 << unused))) unused++;
  return extension(EXTENSION_OIDS.keyUsage, true, tlv(0x03, Buffer.from([unused, ...used])));
}

export function extendedKeyUsage(oids: string[]): Buffer {
  return extension(EXTENSION_OIDS.extKeyUsage, false, sequence(...oids.map(objectIdentifier)));
}

export function subjectKeyIdentifier(keyId: Buffer): Buffer {
  return extension(EXTENSION_OIDS.subjectKeyIdentifier, false, octetString(keyId));
}

export function authorityKeyIdentifier(keyId: Buffer): Buffer {
  return extension(EXTENSION_OIDS.authorityKeyIdentifier, false, sequence(tlv(0x80, keyId)));
}

export function crlDistributionPoints(url: string): Buffer {
  // DistributionPoint { distributionPoint [0] { fullName [0] { URI [6] } } }
  const point = sequence(tlv(0xa0, tlv(0xa0, tlv(0x86, Buffer.from(url, 'latin1')))));
  return extension(EXTENSION_OIDS.crlDistributionPoints, false, sequence(point));
}

/** Authority Information Access: where to ask OCSP, and where the issuer's certificate is. */
export function authorityInfoAccess(urls: { ocsp?: string; caIssuers?: string }): Buffer {
  const access = (method: string, url: string) => sequence(objectIdentifier(method), tlv(0x86, Buffer.from(url, 'latin1')));
  const items: Buffer[] = [];
  if (urls.ocsp) items.push(access(ACCESS_METHODS.ocsp, urls.ocsp));
  if (urls.caIssuers) items.push(access(ACCESS_METHODS.caIssuers, urls.caIssuers));
  return extension(EXTENSION_OIDS.authorityInfoAccess, false, sequence(...items));
}

/** id-pkix-ocsp-nocheck (RFC 6960 §4.2.2.2.1): clients need not check a responder certificate's own status. */
export function ocspNoCheck(): Buffer {
  return extension(EXTENSION_OIDS.ocspNoCheck, false, DER_NULL);
}

export function subjectAltName(entries: SanEntry[]): Buffer {
  const names = entries.map((e) => {
    switch (e.type) {
      case 'email':
        return tlv(0x81, Buffer.from(e.value, 'latin1'));
      case 'dns':
        return tlv(0x82, Buffer.from(e.value, 'latin1'));
      case 'url':
        return tlv(0x86, Buffer.from(e.value, 'latin1'));
      case 'ip':
        return tlv(0x87, ipBytes(e.value));
    }
  });
  return extension(EXTENSION_OIDS.subjectAltName, false, sequence(...names));
}

export function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes its two 16-bit groups.
  const text = ip.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) =>
    `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`,
  );
  const [head, rest] = text.split('::');
  const groups = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(rest);
  const fill = rest === undefined ? [] : new Array(8 - left.length - right.length).fill(0);
  const words = [...left, ...fill, ...right];
  const out = Buffer.alloc(16);
  words.forEach((w, i) => out.writeUInt16BE(w, i * 2));
  return out;
}

/** RFC 5280 method 1 key identifier: SHA-1 of the subjectPublicKey BIT STRING contents. */
export function keyIdentifierOf(spkiDer: Buffer): Buffer {
  const [, bits] = childElements(spkiDer, readElement(spkiDer));
  return createHash('sha1').update(spkiDer.subarray(bits.contentStart + 1, bits.end)).digest();
}
