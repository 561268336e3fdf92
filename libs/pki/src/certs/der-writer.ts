// A minimal DER encoder for the certificate signing hot path. The generic ASN.1 stacks
// (asn1js, forge) cost several milliseconds per certificate; this keeps issuing close to
// the cost of the native signature itself.

export function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = content.length === 1 ? content[0] : Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, ...items);
export const octetString = (bytes: Buffer): Buffer => tlv(0x04, bytes);
export const bitString = (bytes: Buffer): Buffer => tlv(0x03, Buffer.from([0]), bytes);
export const DER_NULL = Buffer.from([0x05, 0x00]);
export const DER_TRUE = Buffer.from([0x01, 0x01, 0xff]);

/** Non-negative INTEGER from big-endian bytes (a 0x00 is prefixed when the top bit is set). */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

const oidCache = new Map<string, Buffer>();

export function objectIdentifier(oid: string): Buffer {
  let encoded = oidCache.get(oid);
  if (!encoded) {
    const arcs = oid.split('.').map(Number);
    const bytes = [40 * arcs[0] + arcs[1]];
    for (const arc of arcs.slice(2)) {
      const chunk = [arc & 0x7f];
      for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift(0x80 | (n & 0x7f));
      bytes.push(...chunk);
    }
    encoded = tlv(0x06, Buffer.from(bytes));
    oidCache.set(oid, encoded);
  }
  return encoded;
}

/** RFC 5280: UTCTime through 2049, GeneralizedTime from 2050. */
export function time(date: Date): Buffer {
  const iso = date.toISOString();
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  const year = date.getUTCFullYear();
  return year < 2050 && year >= 1950
    ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`, 'latin1'))
    : tlv(0x18, Buffer.from(`${digits}Z`, 'latin1'));
}

export interface DerElement {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offset of the content. */
  contentStart: number;
  end: number;
}

/** Reads the element at `offset` without copying; used to slice exact bytes out of DER. */
export function readElement(der: Buffer, offset = 0): DerElement {
  const tag = der[offset];
  let length = der[offset + 1];
  let contentStart = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + der[offset + 2 + i];
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > der.length) throw new RangeError('DER element runs past the end of the data');
  return { tag, start: offset, contentStart, end };
}

export function childElements(der: Buffer, parent: DerElement): DerElement[] {
  const out: DerElement[] = [];
  for (let offset = parent.contentStart; offset < parent.end; ) {
    const child = readElement(der, offset);
    out.push(child);
    offset = child.end;
  }
  return out;
}

/** Exact bytes of the issuer and subject Names and the SubjectPublicKeyInfo of a certificate. */
export function certificateParts(certDer: Buffer): { issuerDer: Buffer; subjectDer: Buffer; spkiDer: Buffer } {
  const [tbs] = childElements(certDer, readElement(certDer));
  const fields = childElements(certDer, tbs);
  const offset = fields[0].tag === 0xa0 ? 1 : 0;
  const slice = (e: DerElement) => certDer.subarray(e.start, e.end);
  return { issuerDer: slice(fields[offset + 2]), subjectDer: slice(fields[offset + 4]), spkiDer: slice(fields[offset + 5]) };
}

// DER of OID 1.2.840.10045.2.1 (id-ecPublicKey).
const EC_PUBLIC_KEY_OID = Buffer.from('06072a8648ce3d0201', 'hex');

/** EC or RSA from the SPKI algorithm OID, without building a KeyObject. */
export function spkiAlgorithm(spkiDer: Buffer): 'EC' | 'RSA' {
  const [algorithm] = childElements(spkiDer, readElement(spkiDer));
  const [oid] = childElements(spkiDer, algorithm);
  return spkiDer.subarray(oid.start, oid.end).equals(EC_PUBLIC_KEY_OID) ? 'EC' : 'RSA';
}

/** Exact bytes of the subject Name and SubjectPublicKeyInfo inside a PKCS#10 request. */
export function csrParts(csrDer: Buffer): { subjectDer: Buffer; spkiDer: Buffer } {
  const [info] = childElements(csrDer, readElement(csrDer));
  const [, subject, spki] = childElements(csrDer, info);
  return { subjectDer: csrDer.subarray(subject.start, subject.end), spkiDer: csrDer.subarray(spki.start, spki.end) };
}
