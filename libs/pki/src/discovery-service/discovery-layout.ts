import { Reply } from '@app/http';

/** Keys of the prefix-B envelope a host name must never overwrite. */
const ENVELOPE_KEYS = ['name', 'result', 'totalRows', 'details'];

/**
 * Prefix-B discovery (docs/api/vault.md): one top-level key per host, valued [SUCCESS|FAILURE, message],
 * with `details` beside them holding the same entries (the key manager's layout, for clients
 * written against it). A host named like an envelope key (or an extra such as jobId) is
 * answered under `details` only.
 */
export function hostsAtTopLevel(answer: Reply): Reply {
  const hosts = answer.details;
  if (!hosts || typeof hosts !== 'object' || Array.isArray(hosts)) return answer;
  const reserved = new Set([...ENVELOPE_KEYS, ...Object.keys(answer.extra ?? {})]);
  const top = Object.fromEntries(Object.entries(hosts).filter(([host]) => !reserved.has(host)));
  return { message: answer.message, status: answer.status, totalRows: answer.totalRows, extra: { ...top, details: hosts, ...answer.extra } };
}
