import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError } from '@app/http';
import { RemoteHostError } from './errors';
import { dropHostKeyPins, hostKeyHost, normalizeHostKeyFingerprint, useHostKeyPins, type HostKeyPins, type PresentedHostKey } from './remote/host-key';
import type { SshTarget } from './remote/target';

export interface HostKeyRow {
  host: string;
  port: number;
  key_type: string;
  fingerprint: string;
  source: 'first-use' | 'operator' | 'accepted';
  refused_fingerprint: string | null;
  refused_key_type: string | null;
  refused_at: Date | null;
}

const COLUMNS = 'host, port, key_type, fingerprint, source, refused_fingerprint, refused_key_type, refused_at';

/** `host:port` with IPv6 in brackets, as messages and audit rows name an endpoint. */
function endpoint(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The one place SSH host keys are pinned (ssh_host_keys): every connection's key exchange
 * asks verify() before authenticating. First sight records the key (or the operator's
 * expected one); a different key is refused, remembered and audited until accept().
 */
@Injectable()
export class SshHostKeys implements HostKeyPins, OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  onModuleInit(): void {
    useHostKeyPins(this);
  }

  onModuleDestroy(): void {
    dropHostKeyPins(this);
  }

  async verify(target: SshTarget, presented: PresentedHostKey): Promise<void> {
    const host = hostKeyHost(target.host);
    const where = endpoint(host, target.port);
    const expected = target.expectedHostKey ? normalizeHostKeyFingerprint(target.expectedHostKey) : null;
    let row = await this.find(target.orgId, host, target.port);
    if (!row) {
      if (expected && expected !== presented.fingerprint) {
        return this.refuse(target, where, expected, presented, 'given for it');
      }
      row = await this.record(target, host, presented, expected ? 'operator' : 'first-use');
      if (row.fingerprint === presented.fingerprint) return;
    }
    if (row.fingerprint !== presented.fingerprint) return this.refuse(target, where, row.fingerprint, presented, 'recorded for it', true);
    if (expected && expected !== row.fingerprint) return this.refuse(target, where, expected, presented, 'given for it');
  }

  listInOrg(orgId: number): Promise<HostKeyRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM ssh_host_keys WHERE org_id = $1 ORDER BY host, port`, [orgId]);
  }

  /** `host|port` → recorded fingerprint, for listings. */
  async fingerprintsInOrg(orgId: number): Promise<Map<string, string>> {
    return new Map((await this.listInOrg(orgId)).map((r) => [`${r.host}|${r.port}`, r.fingerprint]));
  }

  static lookupKey(host: string, port: number): string {
    return `${hostKeyHost(host)}|${port}`;
  }

  /**
   * Pins a new key for a host: the one given, or else the one it last presented and was
   * refused for. Audited with both fingerprints. `actor` is null for the admin command.
   */
  async accept(orgId: number, actor: Actor | null, hostInput: string, port: number, fingerprintInput?: string): Promise<HostKeyRow> {
    const host = hostKeyHost(hostInput);
    const where = endpoint(host, port);
    let given: string | null = null;
    if (fingerprintInput?.trim()) {
      given = normalizeHostKeyFingerprint(fingerprintInput);
      if (!given) throw AppError.invalid('HOSTKEYFINGERPRINT must be a SHA256 fingerprint as ssh-keygen -lf prints it (SHA256: followed by 43 base64 characters)');
    }
    return this.dataSource.transaction(async (m) => {
      const [current]: HostKeyRow[] = await m.query(`SELECT ${COLUMNS} FROM ssh_host_keys WHERE org_id = $1 AND host = $2 AND port = $3 FOR UPDATE`, [orgId, host, port]);
      const fingerprint = given ?? current?.refused_fingerprint;
      if (!fingerprint) {
        throw AppError.invalid(`${where} has presented no new host key to accept; give HOSTKEYFINGERPRINT (as ssh-keygen -lf prints it) to pin one`);
      }
      const keyType = current?.refused_fingerprint === fingerprint ? (current.refused_key_type ?? '') : current?.fingerprint === fingerprint ? current.key_type : '';
      const [row]: HostKeyRow[] = await m.query(
        `INSERT INTO ssh_host_keys (org_id, host, port, key_type, fingerprint, source)
         VALUES ($1, $2, $3, $4, $5, 'accepted')
         ON CONFLICT (org_id, host, port) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, key_type = EXCLUDED.key_type,
           source = 'accepted', refused_fingerprint = NULL, refused_key_type = NULL, refused_at = NULL, updated_at = now()
         RETURNING ${COLUMNS}`,
        [orgId, host, port, keyType, fingerprint],
      );
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.SshHostKeyAccepted,
          orgId,
          actor: actor ?? undefined,
          target: where,
          description: `Host key of ${where} accepted: ${fingerprint}${current ? ` (was ${current.fingerprint})` : ''}`,
        },
        m,
      );
      return row;
    });
  }

  /**
   * Pins a fingerprint the operator gave when saving a target, before any connection.
   * A different key already recorded is not replaced here: that is accept()'s audited job.
   */
  async pinGiven(m: EntityManager, actor: Actor, hostInput: string, port: number, fingerprint: string): Promise<void> {
    const host = hostKeyHost(hostInput);
    const where = endpoint(host, port);
    const [current]: HostKeyRow[] = await m.query(`SELECT ${COLUMNS} FROM ssh_host_keys WHERE org_id = $1 AND host = $2 AND port = $3 FOR UPDATE`, [actor.orgId, host, port]);
    if (current?.fingerprint === fingerprint) return;
    if (current) {
      throw AppError.invalid(`${where} already has host key ${current.fingerprint} recorded, not ${fingerprint}; to replace it use acceptSshHostKey`);
    }
    await m.query(`INSERT INTO ssh_host_keys (org_id, host, port, fingerprint, source) VALUES ($1, $2, $3, $4, 'operator') ON CONFLICT DO NOTHING`, [actor.orgId, host, port, fingerprint]);
    await this.audit.record(
      { category: 'Pki', operation: AuditOperation.SshHostKeyRecorded, actor, target: where, description: `Host key of ${where} recorded as given by the operator: ${fingerprint}` },
      m,
    );
  }

  private async find(orgId: number, host: string, port: number): Promise<HostKeyRow | undefined> {
    const [row] = await this.dataSource.query(`SELECT ${COLUMNS} FROM ssh_host_keys WHERE org_id = $1 AND host = $2 AND port = $3`, [orgId, host, port]);
    return row;
  }

  /** Records the key seen first (or the operator's); a concurrent first sighting wins and is returned instead. */
  private async record(target: SshTarget, host: string, presented: PresentedHostKey, source: HostKeyRow['source']): Promise<HostKeyRow> {
    return this.dataSource.transaction(async (m) => {
      const [inserted]: HostKeyRow[] = await m.query(
        `INSERT INTO ssh_host_keys (org_id, host, port, key_type, fingerprint, source) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (org_id, host, port) DO NOTHING RETURNING ${COLUMNS}`,
        [target.orgId, host, target.port, presented.type, presented.fingerprint, source],
      );
      if (!inserted) {
        const [existing]: HostKeyRow[] = await m.query(`SELECT ${COLUMNS} FROM ssh_host_keys WHERE org_id = $1 AND host = $2 AND port = $3`, [target.orgId, host, target.port]);
        return existing;
      }
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.SshHostKeyRecorded,
          orgId: target.orgId,
          actor: target.actor ?? undefined,
          target: endpoint(host, target.port),
          description: `Host key of ${endpoint(host, target.port)} recorded (${source === 'operator' ? 'as given by the operator' : 'trusted on first use'}): ${presented.type} ${presented.fingerprint}`,
        },
        m,
      );
      return inserted;
    });
  }

  private async refuse(target: SshTarget, where: string, expected: string, presented: PresentedHostKey, whose: string, remember = false): Promise<never> {
    await this.dataSource.transaction(async (m) => {
      if (remember) {
        await m.query(
          `UPDATE ssh_host_keys SET refused_fingerprint = $4, refused_key_type = $5, refused_at = now() WHERE org_id = $1 AND host = $2 AND port = $3`,
          [target.orgId, hostKeyHost(target.host), target.port, presented.fingerprint, presented.type],
        );
      }
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.SshHostKeyRefused,
          outcome: 'Failed',
          orgId: target.orgId,
          actor: target.actor ?? undefined,
          target: where,
          reason: `expected ${expected}, presented ${presented.fingerprint}`,
          description: `Connection to ${where} refused before authentication: its host key is not the one ${whose}`,
        },
        m,
      );
    });
    throw new RemoteHostError(
      'host_key_rejected',
      `The SSH host key of ${where} does not match the one ${whose}: expected ${expected}, presented ${presented.fingerprint} (${presented.type}); ` +
        'nothing was sent to the host. If the host key was changed on purpose, accept the new key with acceptSshHostKey',
    );
  }
}
