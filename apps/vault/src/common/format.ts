const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Dec 1, 2021 09:00 PM` (server time zone), or N/A. */
export function displayTime(value: Date | string | null | undefined): string {
  if (!value) return 'N/A';
  const d = new Date(value);
  const hours = d.getHours() % 12 || 12;
  const ampm = d.getHours() < 12 ? 'AM' : 'PM';
  return `${MONTHS[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()} ${pad(hours)}:${pad(d.getMinutes())} ${ampm}`;
}

/** `yyyy-mm-dd hh:mm:ss.fff`, the audit format. */
export function auditTime(value: Date | string): string {
  const d = new Date(value);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** Empty text shows as N/A in account details. */
export function orNA(value: string | null | undefined): string {
  return value && value.trim() ? value : 'N/A';
}

export function bool(value: boolean): 'true' | 'false' {
  return value ? 'true' : 'false';
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
