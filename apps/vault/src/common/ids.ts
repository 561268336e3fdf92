import { AppError } from '@app/http';

/** Path and input ids are strings of digits; anything else is refused by name. */
export function parseId(value: unknown, label: string): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d{1,9}$/.test(text) || Number(text) === 0) throw AppError.invalid(`Invalid ${label}: ${String(value ?? '').slice(0, 40)}`);
  return Number(text);
}
