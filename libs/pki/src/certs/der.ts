import * as forge from 'node-forge';

const { asn1 } = forge;

export type Asn1 = forge.asn1.Asn1;

export function fromDer(der: Buffer | Uint8Array): Asn1 {
  return asn1.fromDer(forge.util.createBuffer(Buffer.from(der).toString('binary')));
}

export function toDer(node: Asn1): Buffer {
  return Buffer.from(asn1.toDer(node).getBytes(), 'binary');
}

export function children(node: Asn1): Asn1[] {
  return Array.isArray(node.value) ? node.value : [];
}

/**
 * Certificates, CSRs and CRLs all share the SIGNED{...} shape
 * SEQUENCE { toBeSigned, AlgorithmIdentifier, BIT STRING }; this returns the OID.
 */
export function signatureOidOf(der: Buffer | Uint8Array): string {
  const algorithm = children(fromDer(der))[1];
  const oid = children(algorithm)[0];
  return asn1.derToOid(oid.value as string);
}

export function sequence(items: Array<Asn1 | undefined>): Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, items.filter((x): x is Asn1 => !!x));
}

export function set(items: Asn1[]): Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, items);
}

export function oid(value: string): Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(value).getBytes());
}

export function octets(bytes: Buffer | string): Asn1 {
  const raw = Buffer.isBuffer(bytes) ? bytes.toString('binary') : bytes;
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, raw);
}

export function integer(value: number): Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(value).getBytes());
}

export function nullValue(): Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, '');
}

export function explicit(tag: number, items: Asn1[]): Asn1 {
  return asn1.create(asn1.Class.CONTEXT_SPECIFIC, tag, true, items);
}
