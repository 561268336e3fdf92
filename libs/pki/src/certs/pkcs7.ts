import * as forge from 'node-forge';
import { children, explicit, fromDer, integer, oid, sequence, set, toDer } from './der';
import { CertificateError } from './errors';
import { pemBlocks } from './pem';

const SIGNED_DATA = '1.2.840.113549.1.7.2';
const DATA = '1.2.840.113549.1.7.1';

/**
 * A degenerate ("certs-only") PKCS#7 SignedData holding the given DER certificates, built
 * directly in ASN.1 because forge's pkcs7 module only accepts RSA certificates.
 */
export function buildPkcs7(certDers: Buffer[]): Buffer {
  const signedData = sequence([
    integer(1),
    set([]),
    sequence([oid(DATA)]),
    explicit(0, certDers.map((der) => fromDer(der))),
    set([]),
  ]);
  return toDer(sequence([oid(SIGNED_DATA), explicit(0, [signedData])]));
}

/** Certificates (DER) from a PKCS#7 / P7B file in DER or PEM form. */
export function readPkcs7(input: Buffer | string): Buffer[] {
  const der = typeof input === 'string' || input.subarray(0, 11).toString('latin1') === '-----BEGIN '
    ? pemBlocks(input.toString()).find((b) => b.label === 'PKCS7' || b.label === 'CMS')?.der
    : input;
  if (!der) throw new CertificateError('INVALID_INPUT', 'No PKCS#7 block found in the file.');
  try {
    const info = children(fromDer(der));
    if (forge.asn1.derToOid(info[0].value as string) !== SIGNED_DATA) {
      throw new CertificateError('INVALID_INPUT', 'The PKCS#7 file is not a SignedData certificate bundle.');
    }
    const signedData = children(children(info[1])[0]);
    const certs = signedData.find((n) => n.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && n.type === 0);
    return certs ? children(certs).map((c) => toDer(c)) : [];
  } catch (error) {
    if (error instanceof CertificateError) throw error;
    throw new CertificateError('INVALID_INPUT', 'The file is not a readable PKCS#7 certificate bundle.');
  }
}
