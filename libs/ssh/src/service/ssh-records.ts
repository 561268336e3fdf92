import type { SshKeyRow } from './ssh-key.repository';
import type { SshResourceRow, SshUserRow } from './ssh-resource.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

/** CreationTime as the spec shows it: `Today`, `1 day ago`, `12 days ago` (server calendar days). */
export function relativeDays(value: Date | string, now = new Date()): string {
  const then = new Date(value);
  const startOf = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.max(0, Math.round((startOf(now) - startOf(then)) / DAY_MS));
  if (days === 0) return 'Today';
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

/** SSH key record (docs/api/pki.md); the vault's entry has no isPassphraseAvailable. */
export function sshKeyRecord(row: SshKeyRow, withPassphraseFlag: boolean): Record<string, unknown> {
  return {
    KeyName: row.name,
    KeyType: row.key_type,
    KeyLength: String(row.key_length),
    FingerPrint: row.fingerprint,
    ...(withPassphraseFlag ? { isPassphraseAvailable: row.has_passphrase } : {}),
    CreatedBy: row.created_by_name,
    CreationTime: relativeDays(row.created_at),
  };
}

export function sshResourceRecord(row: SshResourceRow & { host_key_fingerprint: string }): Record<string, unknown> {
  return {
    Path: row.landing_server ? `${row.landing_server} -> ${row.name}` : row.name,
    Description: row.description,
    ResourceId: row.id,
    ResourceName: row.name,
    Port: row.port,
    CreationTime: relativeDays(row.created_at),
    IPADDRESS: row.address,
    LandingServerName: row.landing_server,
    HOSTKEYFINGERPRINT: row.host_key_fingerprint,
  };
}

export function sshUserRecord(row: SshUserRow): Record<string, unknown> {
  return { UserName: row.user_name, ResourceName: row.resource_name };
}
