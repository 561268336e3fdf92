import { createPrivateKey, type KeyObject } from 'node:crypto';
import * as sshpk from 'sshpk';
import { checkOpenSshCosts, checkPkcs8Costs, DerivationLimitError, encryptedPkcs8Der } from '@app/crypto';
import { SshKeyError } from './errors';
import { fromKeyObject, keyTypeOf, type SshPrivateKey } from './key-codec';
import type { PrivateKeyFormat } from './key-record';

export interface ParsedPrivateKey {
  key: SshPrivateKey;
  format: PrivateKeyFormat;
  encrypted: boolean;
}

const MAX_KEY_FILE_BYTES = 64 * 1024;
const OPENSSH_BLOCK = /-----BEGIN OPENSSH PRIVATE KEY-----[\s\S]*?-----END OPENSSH PRIVATE KEY-----/;
const PEM_BLOCK = /-----BEGIN ((?:RSA |DSA |EC |ENCRYPTED )?PRIVATE KEY)-----[\s\S]*?-----END \1-----/;

/** Reads OpenSSH and PEM (PKCS#1, PKCS#8, SEC1, DSA) private keys, encrypted or not. */
export function parsePrivateKeyText(file: Buffer | string, passphrase?: string | null): ParsedPrivateKey {
  const text = typeof file === 'string' ? file : file.toString('latin1');
  if (text.length > MAX_KEY_FILE_BYTES) throw notAKey();
  const secret = passphrase || undefined;

  const openssh = OPENSSH_BLOCK.exec(text);
  if (openssh) return parseOpenSsh(openssh[0], secret);
  const pem = PEM_BLOCK.exec(text);
  if (pem) return parsePem(pem[0], secret);
  throw notAKey();
}

function parseOpenSsh(block: string, passphrase: string | undefined): ParsedPrivateKey {
  const encrypted = openSshCipher(block) !== 'none';
  if (encrypted && !passphrase) throw wrongPassphrase();
  if (encrypted) withinSshLimits(() => checkOpenSshCosts(openSshBody(block)));
  let key: SshPrivateKey;
  try {
    key = sshpk.parsePrivateKey(block, 'openssh', encrypted ? { passphrase } : undefined);
  } catch (error) {
    if (encrypted) throw wrongPassphrase();
    throw notAKey();
  }
  keyTypeOf(key);
  return { key, format: 'openssh', encrypted };
}

function parsePem(block: string, passphrase: string | undefined): ParsedPrivateKey {
  const encrypted = /^Proc-Type:\s*4,ENCRYPTED/m.test(block) || block.startsWith('-----BEGIN ENCRYPTED PRIVATE KEY-----');
  if (encrypted && !passphrase) throw wrongPassphrase();
  const pkcs8 = encryptedPkcs8Der(block);
  if (encrypted && pkcs8) withinSshLimits(() => checkPkcs8Costs(pkcs8));
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey({ key: block, format: 'pem', passphrase: encrypted ? passphrase : undefined });
  } catch {
    // A wrong passphrase can also decrypt to garbage that fails later, so any failure of an
    // encrypted key is reported as a passphrase problem.
    if (encrypted) throw wrongPassphrase();
    throw notAKey();
  }
  let key: SshPrivateKey;
  try {
    key = fromKeyObject(keyObject);
  } catch {
    throw notAKey();
  }
  keyTypeOf(key);
  return { key, format: 'pem', encrypted };
}

function openSshBody(block: string): Buffer {
  return Buffer.from(block.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
}

function withinSshLimits(checkCosts: () => void): void {
  try {
    checkCosts();
  } catch (error) {
    if (error instanceof DerivationLimitError) throw new SshKeyError('too_costly', `${error.message}.`);
    throw error;
  }
}

/** The cipher name stored right after the `openssh-key-v1\0` magic. */
function openSshCipher(block: string): string {
  const body = openSshBody(block);
  const magic = 'openssh-key-v1\0';
  if (body.length < magic.length + 4 || body.toString('latin1', 0, magic.length) !== magic) throw notAKey();
  const length = body.readUInt32BE(magic.length);
  const start = magic.length + 4;
  if (length > 64 || start + length > body.length) throw notAKey();
  return body.toString('latin1', start, start + length);
}

function notAKey(): SshKeyError {
  return new SshKeyError('not_a_private_key', 'The file is not an SSH private key');
}

function wrongPassphrase(): SshKeyError {
  return new SshKeyError('wrong_passphrase', 'The passphrase is wrong or missing for this key');
}
