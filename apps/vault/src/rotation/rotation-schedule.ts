import { AppError, parseBoolean } from '@app/http';

export const INTERVAL_UNITS = { minutes: 60, hours: 3_600, days: 86_400 } as const;
export type IntervalUnit = keyof typeof INTERVAL_UNITS;

/** The shortest period a schedule may have: a rotation every few seconds is for drills and tests. */
export const MIN_INTERVAL_SECONDS = 1;
const MAX_INTERVAL_SECONDS = 366 * 86_400 * 10;
export const MAX_RETRIES = 20;
const MAX_NOTIFY = 50;

/** A resource group's rotation schedule, as configured (PUT .../passwordrotation). */
export interface RotationSchedule {
  enabled: boolean;
  /** INTERVAL and INTERVALUNIT as given, answered back unchanged. */
  interval: number;
  unit: IntervalUnit;
  /** First due time; absent: one period after the schedule is saved. */
  startTime?: Date;
  retries: number;
  /** Minutes between a failed attempt and the next one. */
  retryIntervalMinutes: number;
  notify: string[];
}

export function intervalSeconds(s: Pick<RotationSchedule, 'interval' | 'unit'>): number {
  return s.interval * INTERVAL_UNITS[s.unit];
}

/**
 * CONFIGURE PASSWORD ROTATION's Details. ENABLED is required; the period (INTERVAL and
 * INTERVALUNIT) is required when enabling. INTERVAL may have a fraction ("0.05" minutes is
 * three seconds). STARTTIME is "yyyy-mm-dd hh:mm" in UTC. Every problem names its field.
 */
export function parseRotationSchedule(read: (name: string) => unknown, current?: RotationSchedule): RotationSchedule {
  const enabledText = text(read('ENABLED'));
  if (!enabledText) throw AppError.invalid('ENABLED is required (true or false)');
  const enabled = parseBoolean(enabledText);
  if (typeof enabled !== 'boolean') throw AppError.invalid('ENABLED must be true or false');

  const intervalText = text(read('INTERVAL'));
  const unitText = text(read('INTERVALUNIT')).toLowerCase();
  if (!intervalText && !current && enabled) throw AppError.invalid('INTERVAL is required to enable rotation');
  const interval = intervalText ? positiveNumber(intervalText, 'INTERVAL') : (current?.interval ?? 30);
  const unit = unitText || current?.unit || 'days';
  // Own keys only: `in` also finds "constructor", the key of every plain object.
  if (!Object.hasOwn(INTERVAL_UNITS, unit)) throw AppError.invalid(`INTERVALUNIT must be one of: ${Object.keys(INTERVAL_UNITS).join(', ')}`);
  const seconds = interval * INTERVAL_UNITS[unit as IntervalUnit];
  if (seconds < MIN_INTERVAL_SECONDS || seconds > MAX_INTERVAL_SECONDS) {
    throw AppError.invalid(`INTERVAL must be from ${MIN_INTERVAL_SECONDS} second to ten years`);
  }

  const startText = text(read('STARTTIME'));
  const startTime = startText ? parseStartTime(startText) : undefined;
  const retriesText = text(read('RETRIES'));
  const retries = retriesText ? wholeNumber(retriesText, 'RETRIES', MAX_RETRIES) : (current?.retries ?? 0);
  const retryText = text(read('RETRYINTERVAL'));
  const retryIntervalMinutes = retryText ? positiveNumber(retryText, 'RETRYINTERVAL') : (current?.retryIntervalMinutes ?? 5);
  if (retryIntervalMinutes * 60 > MAX_INTERVAL_SECONDS) throw AppError.invalid('RETRYINTERVAL is too long');
  const notifyRaw = read('NOTIFY');
  const notify = notifyRaw === undefined ? (current?.notify ?? []) : addresses(notifyRaw);
  return { enabled, interval, unit: unit as IntervalUnit, startTime, retries, retryIntervalMinutes, notify };
}

/**
 * The first due time after `now`: STARTTIME when it is still ahead, else the next point of
 * STARTTIME + k × period; without STARTTIME, one period from now. Missed periods (a server
 * that was down) are not made up one by one: the next due time is always in the future.
 */
export function nextRun(schedule: Pick<RotationSchedule, 'interval' | 'unit' | 'startTime'>, now: Date, after?: Date): Date {
  const period = intervalSeconds(schedule) * 1000;
  const anchor = after ?? schedule.startTime;
  if (!anchor) return new Date(now.getTime() + period);
  if (anchor.getTime() > now.getTime()) return anchor;
  const periods = Math.floor((now.getTime() - anchor.getTime()) / period) + 1;
  return new Date(anchor.getTime() + periods * period);
}

/** "yyyy-mm-dd hh:mm" (UTC) as written to the client. */
export function formatTime(time: Date | null | undefined): string {
  return time ? time.toISOString().slice(0, 16).replace('T', ' ') : '';
}

function parseStartTime(value: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})$/.exec(value);
  const time = m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5])) : undefined;
  if (!time || isNaN(time.getTime()) || formatTime(time) !== `${m![1]}-${m![2]}-${m![3]} ${m![4]}:${m![5]}`) {
    throw AppError.invalid('STARTTIME must be a date and time as yyyy-mm-dd hh:mm (UTC)');
  }
  return time;
}

function positiveNumber(value: string, field: string): number {
  const n = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!(n > 0)) throw AppError.invalid(`${field} must be a positive number`);
  return n;
}

function wholeNumber(value: string, field: string, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) > max) throw AppError.invalid(`${field} must be a whole number from 0 to ${max}`);
  return Number(value);
}

function addresses(raw: unknown): string[] {
  const list = (Array.isArray(raw) ? raw.map(text) : text(raw).split(/[,;\s]+/)).map((a) => a.trim()).filter(Boolean);
  if (list.length > MAX_NOTIFY) throw AppError.invalid(`NOTIFY takes at most ${MAX_NOTIFY} addresses`);
  for (const address of list) {
    if (address.length > 254 || !/^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+$/.test(address)) throw AppError.invalid(`NOTIFY: ${address} is not a mail address`);
  }
  return list;
}

function text(value: unknown): string {
  return value === undefined || value === null ? '' : String(value).trim();
}
