// @peculiar/x509 uses tsyringe, which needs the Reflect metadata polyfill loaded first.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// Jest's node environment does not always expose globalThis.crypto, so pin the provider.
x509.cryptoProvider.set(webcrypto as never);

export { x509 };
export const subtle = webcrypto.subtle;
export type CryptoKey = webcrypto.CryptoKey;
