import { createPrivateKey, type KeyObject } from 'node:crypto';
import * as sshpk from 'sshpk';
import { SshKeyError } from './errors';
import type { PrivateKeyFormat, SshKeyRecord } from './key-record';
import type { SshKeyType } from './key-spec';
import { sha256Fingerprint } from './public-key-line';

/** sshpk is the bridge between node:crypto key objects and the OpenSSH formats. */
export type SshPrivateKey = sshpk.PrivateKey;

const TYPE_BY_SSHPK: Record<string, SshKeyType> = { rsa: 'ssh-rsa', dsa: 'ssh-dss', ed25519: 'ed25519', ecdsa: 'ecdsa' };

export function fromKeyObject(keyObject: KeyObject): SshPrivateKey {
  if (keyObject.asymmetricKeyType === 'ed25519') return ed25519FromKeyObject(keyObject);
  const key = sshpk.parsePrivateKey(keyObject.export({ type: 'pkcs8', format: 'pem' }), 'pkcs8');
  // sshpk names PEM keys after their source ("(unnamed)"); PEM carries no comment.
  key.comment = '';
  return key;
}

/** sshpk would derive the public half of a PKCS#8 ed25519 key in pure JS; OpenSSL already has it. */
function ed25519FromKeyObject(keyObject: KeyObject): SshPrivateKey {
  const jwk = keyObject.export({ format: 'jwk' });
  return new sshpk.PrivateKey({
    type: 'ed25519',
    parts: [
      { name: 'A', data: Buffer.from(jwk.x ?? '', 'base64url') },
      { name: 'k', data: Buffer.from(jwk.d ?? '', 'base64url') },
    ],
    comment: '',
  });
}

export function keyTypeOf(key: SshPrivateKey): SshKeyType {
  const type = TYPE_BY_SSHPK[key.type];
  if (!type) throw new SshKeyError('not_a_private_key', 'The file is not an SSH private key');
  return type;
}

export function publicKeyLine(key: SshPrivateKey, comment: string): string {
  const [algorithm, blob] = key.toPublic().toString('ssh').split(' ');
  return comment ? `${algorithm} ${blob} ${comment}` : `${algorithm} ${blob}`;
}

/** Every field of the record except the private key text, derived from the key itself. */
export function describeKey(key: SshPrivateKey, comment: string): Omit<SshKeyRecord, 'privateKey' | 'privateKeyFormat' | 'encrypted'> {
  const line = publicKeyLine(key, comment);
  const [algorithm, blob] = line.split(' ');
  return { type: keyTypeOf(key), length: key.size, algorithm, publicKey: line, comment, fingerprint: sha256Fingerprint(blob) };
}

/**
 * OpenSSH format is the default because every OpenSSH version reads it for every type.
 * PEM uses the traditional PKCS#1/SEC1 layouts where they exist (what `ssh-keygen -m PEM`
 * writes) and PKCS#8 for DSA; ed25519 has no PEM form that OpenSSH before 9.6 reads.
 */
export function encodePrivateKey(key: SshPrivateKey, format: PrivateKeyFormat, passphrase?: string): string {
  const secret = passphrase ? passphrase : undefined;
  if (format === 'openssh') {
    key.comment = key.comment ?? '';
    return key.toString('openssh', secret ? { passphrase: secret } : undefined);
  }
  const type = keyTypeOf(key);
  if (type === 'ed25519') {
    throw new SshKeyError('unsupported_export', 'ed25519 keys can only be exported in OpenSSH format');
  }
  const keyObject = createPrivateKey({ key: key.toString('pkcs8'), format: 'pem' });
  const layout = type === 'ssh-rsa' ? 'pkcs1' : type === 'ecdsa' ? 'sec1' : 'pkcs8';
  const encryption = secret ? { cipher: 'aes-256-cbc', passphrase: secret } : {};
  return keyObject.export({ type: layout, format: 'pem', ...encryption }) as string;
}
