import { CertificateError } from './errors';
import { isJks, readJks } from './jks';
import { KeyStoreContents, readPkcs12 } from './pkcs12';

/**
 * addCertificate with fileType KEYSTORE: JKS (by its magic number) or PKCS#12. For a
 * JKS holding several entries the first key entry wins, else its trusted certificates.
 */
export function readKeyStore(data: Buffer, password: string): KeyStoreContents {
  if (!password) throw new CertificateError('INVALID_INPUT', 'The keystore password (PASSWORD) is required.');
  if (!isJks(data)) return readPkcs12(data, password);
  const entries = readJks(data, password);
  const keyEntry = entries.find((e) => e.privateKeyPem);
  if (keyEntry) return { privateKeyPem: keyEntry.privateKeyPem, certPems: keyEntry.certPems, alias: keyEntry.alias };
  return { certPems: entries.flatMap((e) => e.certPems), alias: entries[0]?.alias };
}
