/** `yyyy-mm-dd hh:mm:ss.f` (server time zone), the date form of certificate details. */
export function certTime(value: Date | string): string {
  const d = new Date(value);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${Math.floor(d.getMilliseconds() / 100)}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `MMM d, yyyy` (server time zone), e.g. `Aug 27, 2022`: the date form of the certificate lists. */
export function certListDate(value: Date | string): string {
  const d = new Date(value);
  return `${MONTHS[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}`;
}

/** A file name from a common name: wildcards and path characters never reach the header. */
export function fileNameFor(commonName: string, suffix: string): string {
  const base =
    commonName
      .replace(/^\*\./, 'wildcard.')
      .replace(/[^A-Za-z0-9._-]+|\.{2,}/g, '_')
      .replace(/_+/g, '_')
      .replace(/^[._-]+|[._-]+$/g, '') || 'certificate';
  return `${base}${suffix}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
