import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface KeyVaultRow {
  id: number;
  org_id: number;
  name: string;
  description: string;
  datacenter: string;
  instance_name: string;
  key_type: string;
  file_name: string;
  created_by_name: string;
  created_at: Date;
}

export interface KeyVaultFields {
  description?: string;
  datacenter?: string;
  instanceName?: string;
  keyType?: string;
  fileName?: string;
  /** Sealed. */
  content?: Buffer;
  passphrase?: Buffer;
}

// Sealed columns are never in this list; only readContent selects the content.
const COLUMNS = `id, org_id, name, description, datacenter, instance_name, key_type, file_name, created_by_name, created_at`;

/** Key vault keys of an organisation, addressed by name (case-insensitive). */
@Injectable()
export class KeyVaultRepository {
  constructor(private readonly dataSource: DataSource) {}

  listInOrg(orgId: number): Promise<KeyVaultRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM key_vault_keys WHERE org_id = $1 ORDER BY name_key`, [orgId]);
  }

  async findInOrg(orgId: number, name: string, m: EntityManager = this.dataSource.manager): Promise<KeyVaultRow | undefined> {
    const [row] = await m.query(`SELECT ${COLUMNS} FROM key_vault_keys WHERE org_id = $1 AND name_key = lower($2)`, [orgId, name]);
    return row;
  }

  async lockInOrg(m: EntityManager, orgId: number, name: string): Promise<KeyVaultRow | undefined> {
    const [row] = await m.query(`SELECT ${COLUMNS} FROM key_vault_keys WHERE org_id = $1 AND name_key = lower($2) FOR UPDATE`, [orgId, name]);
    return row;
  }

  /** Inserts unless the name is taken; returns the new id or undefined. */
  async insert(
    m: EntityManager,
    key: { orgId: number; name: string; fileName: string; content: Buffer; passphrase: Buffer | null; createdByName: string } & Omit<KeyVaultFields, 'content' | 'passphrase'>,
  ): Promise<number | undefined> {
    const [row] = await m.query(
      `INSERT INTO key_vault_keys (org_id, name, name_key, description, datacenter, instance_name, key_type, file_name, content, passphrase, created_by_name)
       VALUES ($1, $2, lower($2), $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (org_id, name_key) DO NOTHING RETURNING id`,
      [key.orgId, key.name, key.description ?? '', key.datacenter ?? '', key.instanceName ?? '', key.keyType ?? '', key.fileName, key.content, key.passphrase, key.createdByName],
    );
    return row?.id;
  }

  /** Changes only the fields given. */
  async update(m: EntityManager, orgId: number, id: number, fields: KeyVaultFields): Promise<void> {
    const columns: Record<keyof KeyVaultFields, string> = {
      description: 'description',
      datacenter: 'datacenter',
      instanceName: 'instance_name',
      keyType: 'key_type',
      fileName: 'file_name',
      content: 'content',
      passphrase: 'passphrase',
    };
    const sets: string[] = [];
    const values: unknown[] = [orgId, id];
    for (const [field, column] of Object.entries(columns) as [keyof KeyVaultFields, string][]) {
      if (fields[field] === undefined) continue;
      values.push(fields[field]);
      sets.push(`${column} = $${values.length}`);
    }
    await m.query(`UPDATE key_vault_keys SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE org_id = $1 AND id = $2`, values);
  }

  /** Only after PkiSecretGate.release. */
  async readContent(orgId: number, id: number, m: EntityManager = this.dataSource.manager): Promise<Buffer> {
    const [row] = await m.query(`SELECT content FROM key_vault_keys WHERE org_id = $1 AND id = $2`, [orgId, id]);
    return row.content;
  }

  async delete(m: EntityManager, orgId: number, id: number): Promise<void> {
    await m.query(`DELETE FROM key_vault_keys WHERE org_id = $1 AND id = $2`, [orgId, id]);
  }
}
