import { AppError } from '@app/http';

/** When a requested password may be checked out: from `start` to `end`. */
export interface RequestWindow {
  start: Date;
  end: Date;
}

export interface WindowFields {
  ACCESS?: string;
  STARTTIME?: string;
  ENDTIME?: string;
}

const TIME = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2})$/;
const LONGEST_DAYS = 31;

/**
 * PAM360's request for later (ACCESS `later`, STARTTIME and ENDTIME as `DD/mm/yyyy HH:mm` in
 * the server's time zone): the password may be checked out only inside the window, and the
 * request lapses at its end. ACCESS `now` (the default) has no window: the access-control
 * setting's times apply. A window ends in the future, after it starts, within 31 days.
 */
export function requestWindow(fields: WindowFields, now = new Date()): RequestWindow | undefined {
  const access = (fields.ACCESS ?? 'now').trim().toLowerCase() || 'now';
  if (access !== 'now' && access !== 'later') throw AppError.invalid('ACCESS must be now or later');
  if (access === 'now') {
    if (fields.STARTTIME || fields.ENDTIME) throw AppError.invalid('STARTTIME and ENDTIME need ACCESS later');
    return undefined;
  }
  const start = windowTime(fields.STARTTIME, 'STARTTIME');
  const end = windowTime(fields.ENDTIME, 'ENDTIME');
  if (end <= start) throw AppError.invalid('ENDTIME must be after STARTTIME');
  if (end <= now) throw AppError.invalid('ENDTIME is in the past');
  if (end.getTime() - Math.max(start.getTime(), now.getTime()) > LONGEST_DAYS * 86_400_000) {
    throw AppError.invalid(`The window from STARTTIME to ENDTIME must be at most ${LONGEST_DAYS} days`);
  }
  return { start, end };
}

function windowTime(value: string | undefined, field: string): Date {
  const m = TIME.exec(value?.trim() ?? '');
  if (!m) throw AppError.invalid(`${field} is required with ACCESS later, as DD/mm/yyyy HH:mm`);
  const [day, month, year, hour, minute] = m.slice(1).map(Number);
  const date = new Date(year, month - 1, day, hour, minute);
  // new Date rolls 31/02 over into March: a date that does not exist is refused instead.
  if (date.getDate() !== day || date.getMonth() !== month - 1 || hour > 23 || minute > 59) throw AppError.invalid(`${field} is not a date and time: ${value}`);
  return date;
}

/** A browser's datetime-local value (yyyy-mm-ddTHH:mm) as the API's DD/mm/yyyy HH:mm. */
export function fromDateTimeLocal(value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(value.trim());
  return m ? `${m[3]}/${m[2]}/${m[1]} ${m[4]}:${m[5]}` : value;
}
