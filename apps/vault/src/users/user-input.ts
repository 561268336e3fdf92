import { isValidHostEntry } from '@app/auth';
import { AppError } from '@app/http';

const MAX_HOST_ENTRIES = 50;

/** HOSTNAME / ALLOWEDIPADDRESS: addresses, CIDR ranges or host names, comma separated. Empty = anywhere. */
export function parseHostBinding(value: string | undefined, field: string): string {
  const entries = (value ?? '')
    .split(/[,;\s]+/)
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length > MAX_HOST_ENTRIES) throw AppError.invalid(`${field} may list at most ${MAX_HOST_ENTRIES} entries`);
  const bad = entries.find((e) => !isValidHostEntry(e));
  if (bad !== undefined) {
    throw AppError.invalid(`${field}: "${bad.slice(0, 80)}" is not an IP address, CIDR range or host name`);
  }
  return entries.join(',');
}

/**
 * EXPIRYDATE: `yyyy-mm-dd` (the last day of access) or `NeverExpires` (null). A day already
 * past is refused: the account would be dead on arrival.
 */
export function parseExpiryDate(value: string | undefined, today: Date = new Date()): string | null {
  const text = (value ?? '').trim();
  if (text === '' || text.toLowerCase() === 'neverexpires') return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const date = match ? new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : undefined;
  if (!match || !date || date.getFullYear() !== Number(match[1]) || date.getMonth() !== Number(match[2]) - 1 || date.getDate() !== Number(match[3])) {
    throw AppError.invalid('EXPIRYDATE must be a date as yyyy-mm-dd or NeverExpires');
  }
  const startOfToday = new Date(today.getFullYear(), today.getMonth(), today.getDate());
  if (date < startOfToday) throw AppError.invalid('EXPIRYDATE must not be in the past');
  return text;
}
