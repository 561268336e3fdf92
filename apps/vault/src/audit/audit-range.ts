import { AppError } from '@app/http';

export interface TimeRange {
  from: Date | null;
  /** Exclusive. */
  to: Date | null;
}

/**
 * DURATION in server time: TODAY since midnight, YESTERDAY the day before, LAST_7_DAYS
 * today and the six days before. FROMDATE/TODATE (`yyyy-mm-dd` or `yyyy-mm-dd hh:mm[:ss[.fff]]`)
 * is the extension; a TODATE without a time includes that whole day.
 */
export function auditRange(duration: string | undefined, fromDate: string | undefined, toDate: string | undefined, now = new Date()): TimeRange {
  if (duration && (fromDate || toDate)) throw AppError.invalid('Give DURATION or FROMDATE/TODATE, not both');
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  switch (duration) {
    case 'TODAY':
      return { from: midnight, to: null };
    case 'YESTERDAY':
      return { from: addDays(midnight, -1), to: midnight };
    case 'LAST_7_DAYS':
      return { from: addDays(midnight, -6), to: null };
  }
  const from = fromDate ? parseMoment(fromDate, 'FROMDATE', false) : null;
  const to = toDate ? parseMoment(toDate, 'TODATE', true) : null;
  if (from && to && from >= to) throw AppError.invalid('FROMDATE must be before TODATE');
  return { from, to };
}

function addDays(day: Date, n: number): Date {
  // Calendar arithmetic, not n * 24 h: a day across a DST change is 23 or 25 hours long.
  return new Date(day.getFullYear(), day.getMonth(), day.getDate() + n);
}

function parseMoment(text: string, field: string, endOfDay: boolean): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/.exec(text.trim());
  if (!m) throw AppError.invalid(`${field} must be yyyy-mm-dd or yyyy-mm-dd hh:mm:ss`);
  const [y, mo, d, h, mi, s, f] = m.slice(1).map((v) => (v === undefined ? undefined : Number(v)));
  const date = new Date(y!, mo! - 1, d!, h ?? 0, mi ?? 0, s ?? 0, f === undefined ? 0 : Number(m[7].padEnd(3, '0')));
  if (date.getMonth() !== mo! - 1 || date.getDate() !== d! || (h ?? 0) > 23 || (mi ?? 0) > 59 || (s ?? 0) > 59) {
    throw AppError.invalid(`${field} is not a valid date: ${text.slice(0, 30)}`);
  }
  if (endOfDay && h === undefined) return addDays(date, 1);
  return date;
}
