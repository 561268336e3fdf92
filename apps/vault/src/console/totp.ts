import { Secret, TOTP } from 'otpauth';

const PERIOD = 30;
export const TOTP_ISSUER = 'Credential Vault';

/** A new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function totpUri(secret: string, username: string): string {
  return new TOTP({ issuer: TOTP_ISSUER, label: username, secret: Secret.fromBase32(secret), period: PERIOD }).toString();
}

/**
 * The time step a code belongs to (one step either side of now, for clocks that drift), or
 * undefined when it is not a code of this secret. The caller accepts a step only once.
 */
export function totpStep(secret: string, code: string, now = Date.now()): number | undefined {
  if (!/^\d{6}$/.test(code.trim())) return undefined;
  const totp = new TOTP({ secret: Secret.fromBase32(secret), period: PERIOD });
  const delta = totp.validate({ token: code.trim(), timestamp: now, window: 1 });
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD) + delta;
}

/** The code of a secret at a time: for tests and the enrolment check only. */
export function totpCode(secret: string, now = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret), period: PERIOD }).generate({ timestamp: now });
}
