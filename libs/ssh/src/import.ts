import { validateComment } from './comment';
import { describeKey } from './key-codec';
import { parsePrivateKeyText } from './key-parse';
import type { ImportedSshKey } from './key-record';

export interface ImportSshKeyOptions {
  passphrase?: string | null;
  /** Used when the file carries no comment of its own (PEM files never do). */
  comment?: string | null;
}

/** Describes an uploaded private key; the file text is kept unchanged as `privateKey`. */
export function importSshPrivateKey(file: Buffer | string, options: ImportSshKeyOptions = {}): ImportedSshKey {
  const parsed = parsePrivateKeyText(file, options.passphrase);
  const comment = validateComment(parsed.key.comment || options.comment);
  return {
    ...describeKey(parsed.key, comment),
    privateKey: typeof file === 'string' ? file : file.toString('utf8'),
    privateKeyFormat: parsed.format,
    encrypted: parsed.encrypted,
  };
}
