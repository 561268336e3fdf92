import { AppError } from '@app/http';

const MAX_ADDRESSES = 10;
// A practical address check (RFC 5321 sizes, no quoted local parts, no display names).
const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/**
 * The `Email` field (Expiry Notification Email): empty, or up to ten addresses separated
 * by commas, semicolons or spaces. Stored as `a@x, b@y`; a bad address is named.
 */
export function notificationEmails(value: string | undefined, field = 'Email'): string {
  const addresses = (value ?? '').split(/[,;\s]+/).filter(Boolean);
  if (addresses.length > MAX_ADDRESSES) throw AppError.invalid(`${field} holds at most ${MAX_ADDRESSES} addresses`);
  const bad = addresses.find((a) => !ADDRESS.test(a));
  if (bad) throw AppError.invalid(`${field}: "${bad}" is not an email address`);
  return addresses.join(', ');
}
