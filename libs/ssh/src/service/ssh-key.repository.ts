import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface SshKeyRow {
  id: number;
  org_id: number;
  name: string;
  key_type: string;
  key_length: number;
  comment: string;
  public_key: string;
  fingerprint: string;
  has_passphrase: boolean;
  created_by_name: string;
  created_at: Date;
}

export interface SshKeySecrets {
  private_key: Buffer;
  passphrase: Buffer | null;
}

export interface NewSshKey {
  orgId: number;
  name: string;
  keyType: string;
  keyLength: number;
  comment: string;
  publicKey: string;
  fingerprint: string;
  privateKey: Buffer;
  passphrase: Buffer | null;
  createdBy: number;
  createdByName: string;
}

// Secrets are never in this list; they are read only by readSecrets.
const COLUMNS = `k.id, k.org_id, k.name, k.key_type, k.key_length, k.comment, k.public_key, k.fingerprint,
  (k.passphrase IS NOT NULL) AS has_passphrase, k.created_by_name, k.created_at`;

/** SSH keys of an organisation, addressed by name (case-insensitive). */
@Injectable()
export class SshKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  listInOrg(orgId: number): Promise<SshKeyRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM ssh_keys k WHERE k.org_id = $1 ORDER BY k.name_key`, [orgId]);
  }

  async findInOrg(orgId: number, name: string, m: EntityManager = this.dataSource.manager): Promise<SshKeyRow | undefined> {
    const [row] = await m.query(`SELECT ${COLUMNS} FROM ssh_keys k WHERE k.org_id = $1 AND k.name_key = lower($2)`, [orgId, name]);
    return row;
  }

  /** Locks the key against concurrent deletion while it is associated or deleted. */
  async lockInOrg(m: EntityManager, orgId: number, name: string, mode: 'SHARE' | 'UPDATE'): Promise<SshKeyRow | undefined> {
    const [row] = await m.query(`SELECT ${COLUMNS} FROM ssh_keys k WHERE k.org_id = $1 AND k.name_key = lower($2) FOR ${mode}`, [orgId, name]);
    return row;
  }

  /** Only after PkiSecretGate.release (or to use the key on the organisation's behalf). */
  async readSecrets(orgId: number, keyId: number, m: EntityManager = this.dataSource.manager): Promise<SshKeySecrets> {
    const [row] = await m.query('SELECT private_key, passphrase FROM ssh_keys WHERE org_id = $1 AND id = $2', [orgId, keyId]);
    return row;
  }

  /** Inserts the key; undefined when the name is taken in the organisation. */
  async insert(m: EntityManager, key: NewSshKey): Promise<number | undefined> {
    const [row] = await m.query(
      `INSERT INTO ssh_keys (org_id, name, name_key, key_type, key_length, comment, public_key, fingerprint, private_key, passphrase, created_by, created_by_name)
       VALUES ($1, $2, lower($2), $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (org_id, name_key) DO NOTHING RETURNING id`,
      [key.orgId, key.name, key.keyType, key.keyLength, key.comment, key.publicKey, key.fingerprint, key.privateKey, key.passphrase, key.createdBy, key.createdByName],
    );
    return row?.id;
  }

  /** Deletes the key; its association rows go with it (foreign key cascade). */
  async delete(m: EntityManager, orgId: number, keyId: number): Promise<void> {
    await m.query('DELETE FROM ssh_keys WHERE org_id = $1 AND id = $2', [orgId, keyId]);
  }
}
