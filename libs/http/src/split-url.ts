/** A request target split at its first `?`: the path, and the rest with the `?` (or ''). */
export function splitUrl(url: string): { path: string; search: string } {
  const q = url.indexOf('?');
  return q === -1 ? { path: url, search: '' } : { path: url.slice(0, q), search: url.slice(q) };
}
