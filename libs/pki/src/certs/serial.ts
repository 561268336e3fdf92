import { randomBytes } from 'node:crypto';

/**
 * 16 random bytes with the top bit clear (a positive INTEGER without padding) and a
 * non-zero first byte, so every serial has 121+ random bits and the same length.
 */
export function randomSerialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) || 0x01;
  return bytes.toString('hex').toUpperCase();
}

/** Canonical serial text used everywhere: uppercase hex, no separators or leading zeros. */
export function normaliseSerial(serial: string): string {
  const hex = serial.replace(/[\s:]/g, '').replace(/^0x/i, '').toUpperCase();
  if (!/^[0-9A-F]+$/.test(hex)) return hex;
  return hex.replace(/^0+(?=.)/, '');
}
