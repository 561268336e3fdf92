import { runOffLoop } from '@app/crypto';
import { checkPkcs12Costs, withinLimits } from './derivation-limits';
import { CertificateError } from './errors';
import { isJks } from './jks';
import type { KeyStoreContents } from './pkcs12';

/** readKeyStore (PKCS#12 or JKS) in the process's worker pool: its key derivations take seconds. */
export async function readKeyStoreOffLoop(data: Buffer, password: string): Promise<KeyStoreContents> {
  // Cheap, and answers an over-limit file without starting a worker (the worker checks again).
  if (!isJks(data)) withinLimits(() => checkPkcs12Costs(data));
  return runOffLoop<KeyStoreContents>(
    { module: require.resolve('./keystore'), name: 'readKeyStore', args: [data, password] },
    { errors: [CertificateError], tooSlow: (seconds) => new CertificateError('INVALID_INPUT', `Reading the file took longer than ${seconds} s and was stopped.`) },
  );
}
