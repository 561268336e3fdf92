import { runOffLoop } from '@app/crypto';
import { SshKeyError } from './errors';
import type { ImportSshKeyOptions } from './import';
import type { ImportedSshKey } from './key-record';

/** importSshPrivateKey in the process's worker pool: an encrypted key's bcrypt rounds take seconds. */
export function importSshPrivateKeyOffLoop(file: Buffer | string, options: ImportSshKeyOptions = {}): Promise<ImportedSshKey> {
  return runOffLoop<ImportedSshKey>(
    { module: require.resolve('./import'), name: 'importSshPrivateKey', args: [file, options] },
    { errors: [SshKeyError], tooSlow: (seconds) => new SshKeyError('too_costly', `Reading the file took longer than ${seconds} s and was stopped.`) },
  );
}
