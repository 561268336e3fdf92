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

  /** Only a key and a host of the same organisation, that organisation's, are ever linked. */
  async add(m: EntityManager, orgId: number, keyId: number, resourceId: number, userName: string): Promise<boolean> {
    const rows = await m.query(
      `INSERT INTO ssh_key_associations (ssh_key_id, ssh_resource_id, user_name)
       SELECT k.id, r.id, $4 FROM ssh_keys k JOIN ssh_resources r ON r.org_id = k.org_id
       WHERE k.org_id = $1 AND k.id = $2 AND r.id = $3
       ON CONFLICT DO NOTHING RETURNING ssh_key_id`,
      [orgId, keyId, resourceId, userName],
    );
    return rows.length > 0;
  }

  async remove(m: EntityManager, orgId: number, keyId: number, resourceId: number, userName: string): Promise<boolean> {
    const rows = await m.query(
      `DELETE FROM ssh_key_associations a USING ssh_keys k
       WHERE k.id = a.ssh_key_id AND k.org_id = $1 AND a.ssh_key_id = $2 AND a.ssh_resource_id = $3 AND a.user_name = $4 RETURNING a.ssh_key_id`,
      [orgId, keyId, resourceId, userName],
    );
    return rows.length > 0;
  }

  async exists(orgId: number, keyId: number, resourceId: number, userName: string, m: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows = await m.query(
      `SELECT 1 FROM ssh_key_associations a JOIN ssh_keys k ON k.id = a.ssh_key_id
       WHERE k.org_id = $1 AND a.ssh_key_id = $2 AND a.ssh_resource_id = $3 AND a.user_name = $4`,
      [orgId, keyId, resourceId, userName],
    );
    return rows.length > 0;
  }

  ofKey(orgId: number, keyId: number, m: EntityManager = this.dataSource.manager): Promise<AssociationRow[]> {
    return m.query(
      `SELECT a.ssh_key_id, a.ssh_resource_id, r.name AS resource_name, a.user_name
       FROM ssh_key_associations a JOIN ssh_resources r ON r.id = a.ssh_resource_id
       WHERE r.org_id = $1 AND a.ssh_key_id = $2 ORDER BY r.name_key, a.user_name`,
      [orgId, keyId],
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
