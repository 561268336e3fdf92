import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { SshKeySpec } from './key-spec';

const generateKeyPairAsync = promisify(generateKeyPair);

const CURVES: Record<number, string> = { 256: 'P-256', 384: 'P-384', 521: 'P-521' };

/**
 * Generates in libuv's thread pool via OpenSSL, so the event loop keeps serving requests
 * while a 4096-bit RSA key takes its second or two.
 */
export async function generatePrivateKeyObject(spec: SshKeySpec): Promise<KeyObject> {
  switch (spec.type) {
    case 'ssh-rsa':
      return (await generateKeyPairAsync('rsa', { modulusLength: spec.length, publicExponent: 0x10001 })).privateKey;
    case 'ssh-dss':
      return (await generateKeyPairAsync('dsa', { modulusLength: spec.length, divisorLength: 160 })).privateKey;
    case 'ed25519':
      return (await generateKeyPairAsync('ed25519', {})).privateKey;
    case 'ecdsa':
      return (await generateKeyPairAsync('ec', { namedCurve: CURVES[spec.length] })).privateKey;
  }
}
