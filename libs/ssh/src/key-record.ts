import type { SshKeyType } from './key-spec';

export type PrivateKeyFormat = 'openssh' | 'pem';

/** What generation and import both produce, ready to be stored. */
export interface SshKeyRecord {
  type: SshKeyType;
  length: number;
  /** OpenSSH algorithm name, e.g. `ssh-ed25519`, `ecdsa-sha2-nistp384`. */
  algorithm: string;
  /** `algorithm base64 comment`, one line, no newline. */
  publicKey: string;
  comment: string;
  /** `SHA256:...` as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  /** Private key text: what was generated, or the imported file unchanged. */
  privateKey: string;
  privateKeyFormat: PrivateKeyFormat;
  /** Whether `privateKey` is protected by a passphrase. */
  encrypted: boolean;
}

export type GeneratedSshKey = SshKeyRecord;
export type ImportedSshKey = SshKeyRecord;
