import { validateComment } from './comment';
import { describeKey, encodePrivateKey, fromKeyObject } from './key-codec';
import { generatePrivateKeyObject } from './key-generation';
import type { GeneratedSshKey, PrivateKeyFormat } from './key-record';
import { normalizeKeySpec } from './key-spec';
import type { RsaKeyPool } from './rsa-key-pool';

export interface GenerateSshKeyRequest {
  /** `ssh-rsa`, `ssh-dss`, `ed25519`, `ecdsa` or an alias such as `rsa`, `ecdsa-sha2-nistp384`; any case. */
  type: string;
  length?: number | string | null;
  comment?: string | null;
  /** Encrypts the private key text; empty or absent leaves it unencrypted. */
  passphrase?: string | null;
  /** Default `openssh`. */
  format?: PrivateKeyFormat;
}

export interface GenerateSshKeyOptions {
  /** Used for RSA keys of the pool's length. */
  rsaPool?: RsaKeyPool;
}

export async function generateSshKey(request: GenerateSshKeyRequest, options: GenerateSshKeyOptions = {}): Promise<GeneratedSshKey> {
  const spec = normalizeKeySpec(request.type, request.length);
  const comment = validateComment(request.comment);
  const format = request.format ?? 'openssh';
  const pool = options.rsaPool;
  const keyObject =
    pool && spec.type === 'ssh-rsa' && spec.length === pool.modulusLength ? await pool.take() : await generatePrivateKeyObject(spec);
  const key = fromKeyObject(keyObject);
  key.comment = comment;
  const passphrase = request.passphrase || undefined;
  return {
    ...describeKey(key, comment),
    privateKey: encodePrivateKey(key, format, passphrase),
    privateKeyFormat: format,
    encrypted: passphrase !== undefined,
  };
}
