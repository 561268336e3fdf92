import { AppError } from '@app/http';

/** Path and input ids are strings of digits; anything else is refused by name. */
export function parseId(value: unknown, label: string): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d{1,9}$/.test(text) || Number(text) === 0) throw AppError.invalid(`Invalid ${label}: ${String(value ?? '').slice(0, 40)}`);
  return Number(text);
}

/** Ids as clients send them: a list of numbers or digit strings, or comma-separated text. */
export function parseIdList(value: unknown, field: string): number[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' || typeof value === 'number' ? String(value).split(',') : [];
  const ids = items.map((v) => String(v).trim()).filter(Boolean);
  if (ids.length === 0) throw AppError.invalid(`${field} is required (a list of ids)`);
  if (ids.length > 1000) throw AppError.invalid(`${field} may list at most 1000 ids`);
  return [...new Set(ids.map((id) => parseId(id, `${field} entry`)))];
}
