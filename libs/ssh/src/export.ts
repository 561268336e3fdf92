import { encodePrivateKey } from './key-codec';
import { parsePrivateKeyText } from './key-parse';
import type { PrivateKeyFormat, SshKeyRecord } from './key-record';

export interface ExportPrivateKeyOptions {
  /** Passphrase protecting the stored text, if it is encrypted. */
  passphrase?: string | null;
  /** Default `openssh`. */
  format?: PrivateKeyFormat;
  /** Passphrase for the exported file; absent keeps `passphrase`, empty or null exports it unencrypted. */
  exportPassphrase?: string | null;
}

/** Re-encodes a stored private key so `ssh-keygen -y -f file [-P passphrase]` opens it. */
export function exportSshPrivateKey(privateKeyText: Buffer | string, options: ExportPrivateKeyOptions = {}): string {
  const { key } = parsePrivateKeyText(privateKeyText, options.passphrase);
  const target = options.exportPassphrase === undefined ? options.passphrase : options.exportPassphrase;
  return encodePrivateKey(key, options.format ?? 'openssh', target || undefined);
}

/** Content of a `.pub` file. */
export function exportSshPublicKey(record: Pick<SshKeyRecord, 'publicKey'>): string {
  return `${record.publicKey}\n`;
}
