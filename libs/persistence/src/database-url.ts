/*
 * DATABASE_URL as libpq writes it, several hosts included:
 *   postgres://user:pass@db1:5432,db2:5433/vault?target_session_attrs=read-write
 * pg's own parser (pg-connection-string) takes one host only, so the list is cut here into one
 * single-host URL per host, tried in order by HostChoosingClient.
 */

/** What a connection must be to be kept (libpq's target_session_attrs; `any` is the default). */
export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

export interface DatabaseHost {
  host: string;
  port: number;
  /** The URL with this host alone (target_session_attrs taken out: pg would pass it on as a setting). */
  url: string;
}

export interface DatabaseTarget {
  hosts: DatabaseHost[];
  targetSessionAttrs: TargetSessionAttrs;
}

const ATTRS: readonly string[] = ['any', 'read-write', 'primary'];

export function parseDatabaseUrl(url: string): DatabaseTarget {
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/.exec(url);
  if (!match) throw new Error('DATABASE_URL must be a postgres:// URL');
  const [, scheme, authority, rest] = match;
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  const hostList = authority.slice(at + 1);
  const [path, query = ''] = splitOnce(rest, '?');
  const params = new URLSearchParams(query);
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!ATTRS.includes(attrs)) throw new Error(`DATABASE_URL: target_session_attrs must be one of ${ATTRS.join(', ')} (not ${attrs})`);
  params.delete('target_session_attrs');
  const kept = params.toString();
  const hosts = (hostList ? hostList.split(',') : ['']).map((entry) => {
    const { host, port } = splitHostPort(entry);
    const hostPart = host ? `${host.includes(':') ? `[${host}]` : host}:${port}` : '';
    return { host: host || 'localhost', port, url: `${scheme}${userinfo}${hostPart}${path}${kept ? `?${kept}` : ''}` };
  });
  return { hosts, targetSessionAttrs: attrs as TargetSessionAttrs };
}

/** True when connections need choosing: more than one host, or an attribute to check. */
export function needsHostChoice(target: DatabaseTarget): boolean {
  return target.hosts.length > 1 || target.targetSessionAttrs !== 'any';
}

function splitHostPort(entry: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d*))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1], port: portOf(bracketed[2], entry) };
  const [host, port] = splitOnce(entry, ':');
  return { host: decodeURIComponent(host), port: portOf(port, entry) };
}

function portOf(text: string | undefined, entry: string): number {
  if (!text) return 5432;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) throw new Error(`DATABASE_URL: bad port in host ${entry}`);
  return port;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const i = text.indexOf(separator);
  return i < 0 ? [text, undefined] : [text.slice(0, i), text.slice(i + 1)];
}

/** The same URL (every host, every parameter) naming another database. */
export function withDatabaseName(url: string, database: string): string {
  const match = /^(postgres(?:ql)?:\/\/[^/?#]*)(\/[^?#]*)?(.*)$/.exec(url);
  if (!match) throw new Error('DATABASE_URL must be a postgres:// URL');
  return `${match[1]}/${encodeURIComponent(database)}${match[3]}`;
}
