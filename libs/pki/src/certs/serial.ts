import { randomBytes } from 'node:crypto';

/**
 * 16 random bytes with the first byte in 0x40-0x7F: a positive INTEGER without padding,
 * always 32 hex digits, with 126 random bits.
 */
export function randomSerialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = 0x40 | (bytes[0] & 0x3f);
  return bytes.toString('hex').toUpperCase();
}

/**
 * Canonical serial text used everywhere: uppercase hex of the minimal whole bytes, as
 * openssl and node print it (no separators, no 00 padding byte, even length).
 */
export function normaliseSerial(serial: string): string {
  const hex = serial.replace(/[\s:]/g, '').replace(/^0x/i, '').toUpperCase();
  if (!/^[0-9A-F]+$/.test(hex)) return hex;
  const minimal = hex.replace(/^0+(?=.)/, '');
  return minimal.length % 2 ? `0${minimal}` : minimal;
}
