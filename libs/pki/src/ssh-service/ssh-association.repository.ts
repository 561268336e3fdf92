import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { SshUserRow } from './ssh-resource.repository';

export interface AssociationRow {
  ssh_key_id: number;
  ssh_resource_id: number;
  resource_name: string;
  user_name: string;
}

/** Which key's public line we placed for which user on which host. */
@Injectable()
export class SshAssociationRepository {
  constructor(private readonly dataSource: DataSource) {}

  async add(m: EntityManager, keyId: number, resourceId: number, userName: string): Promise<boolean> {
    const rows = await m.query(
      'INSERT INTO ssh_key_associations (ssh_key_id, ssh_resource_id, user_name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING ssh_key_id',
      [keyId, resourceId, userName],
    );
    return rows.length > 0;
  }

  async remove(m: EntityManager, keyId: number, resourceId: number, userName: string): Promise<boolean> {
    const rows = await m.query(
      'DELETE FROM ssh_key_associations WHERE ssh_key_id = $1 AND ssh_resource_id = $2 AND user_name = $3 RETURNING ssh_key_id',
      [keyId, resourceId, userName],
    );
    return rows.length > 0;
  }

  async exists(keyId: number, resourceId: number, userName: string, m: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows = await m.query('SELECT 1 FROM ssh_key_associations WHERE ssh_key_id = $1 AND ssh_resource_id = $2 AND user_name = $3', [keyId, resourceId, userName]);
    return rows.length > 0;
  }

  ofKey(keyId: number, m: EntityManager = this.dataSource.manager): Promise<AssociationRow[]> {
    return m.query(
      `SELECT a.ssh_key_id, a.ssh_resource_id, r.name AS resource_name, a.user_name
       FROM ssh_key_associations a JOIN ssh_resources r ON r.id = a.ssh_resource_id
       WHERE a.ssh_key_id = $1 ORDER BY r.name_key, a.user_name`,
      [keyId],
    );
  }

  async keyNamesFor(orgId: number, resourceName: string, userName: string): Promise<string[]> {
    const rows: { name: string }[] = await this.dataSource.query(
      `SELECT k.name FROM ssh_key_associations a
       JOIN ssh_keys k ON k.id = a.ssh_key_id JOIN ssh_resources r ON r.id = a.ssh_resource_id
       WHERE r.org_id = $1 AND r.name_key = lower($2) AND a.user_name = $3 ORDER BY k.name_key`,
      [orgId, resourceName, userName],
    );
    return rows.map((r) => r.name);
  }

  /** Distinct user and host pairs that have at least one of our keys. */
  associatedUsersInOrg(orgId: number): Promise<SshUserRow[]> {
    return this.dataSource.query(
      `SELECT DISTINCT a.user_name, r.name AS resource_name, r.name_key FROM ssh_key_associations a
       JOIN ssh_resources r ON r.id = a.ssh_resource_id WHERE r.org_id = $1 ORDER BY r.name_key, a.user_name`,
      [orgId],
    );
  }
}
