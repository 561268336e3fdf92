import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface SshResourceRow {
  id: number;
  org_id: number;
  name: string;
  address: string;
  port: number;
  description: string;
  landing_server: string;
  login_user: string | null;
  login_is_admin: boolean;
  created_at: Date;
}

export interface SshUserRow {
  user_name: string;
  resource_name: string;
}

export interface ResourceCredentials {
  address: string;
  userName: string;
  password: Buffer;
  isAdmin: boolean;
}

const COLUMNS = 'r.id, r.org_id, r.name, r.address, r.port, r.description, r.landing_server, r.login_user, r.login_is_admin, r.created_at';

/** SSH resources of an organisation and the login users found on them. */
@Injectable()
export class SshResourceRepository {
  constructor(private readonly dataSource: DataSource) {}

  listInOrg(orgId: number): Promise<SshResourceRow[]> {
    return this.dataSource.query(`SELECT ${COLUMNS} FROM ssh_resources r WHERE r.org_id = $1 ORDER BY r.name_key`, [orgId]);
  }

  async findInOrg(orgId: number, name: string): Promise<SshResourceRow | undefined> {
    const [row] = await this.dataSource.query(`SELECT ${COLUMNS} FROM ssh_resources r WHERE r.org_id = $1 AND r.name_key = lower($2)`, [orgId, name]);
    return row;
  }

  /**
   * Locks the resource row: every change of a file on that host runs under it, so two
   * edits of the same authorized_keys never interleave their read and write.
   */
  async lockInOrg(m: EntityManager, orgId: number, name: string): Promise<SshResourceRow | undefined> {
    const [row] = await m.query(`SELECT ${COLUMNS} FROM ssh_resources r WHERE r.org_id = $1 AND r.name_key = lower($2) FOR UPDATE`, [orgId, name]);
    return row;
  }

  async lockById(m: EntityManager, orgId: number, id: number): Promise<SshResourceRow | undefined> {
    const [row] = await m.query(`SELECT ${COLUMNS} FROM ssh_resources r WHERE r.org_id = $1 AND r.id = $2 FOR UPDATE`, [orgId, id]);
    return row;
  }

  async readLoginPassword(orgId: number, resourceId: number, m: EntityManager = this.dataSource.manager): Promise<Buffer | null> {
    const [row] = await m.query('SELECT login_password FROM ssh_resources WHERE org_id = $1 AND id = $2', [orgId, resourceId]);
    return row?.login_password ?? null;
  }

  /** Creates the resource or replaces its credentials; returns its id and whether it is new. */
  async saveCredentials(m: EntityManager, orgId: number, name: string, port: number, credentials: ResourceCredentials): Promise<{ id: number; created: boolean }> {
    const [row] = await m.query(
      `INSERT INTO ssh_resources (org_id, name, name_key, address, port, login_user, login_password, login_is_admin)
       VALUES ($1, $2, lower($2), $3, $4, $5, $6, $7)
       ON CONFLICT (org_id, name_key) DO UPDATE SET address = EXCLUDED.address, login_user = EXCLUDED.login_user,
         login_password = EXCLUDED.login_password, login_is_admin = EXCLUDED.login_is_admin
       RETURNING id, (xmax = 0) AS created`,
      [orgId, name, credentials.address, port, credentials.userName, credentials.password, credentials.isAdmin],
    );
    return row;
  }

  /** Records a host found by discovery, without credentials; existing resources stay as they are. */
  async addDiscovered(m: EntityManager, orgId: number, name: string, address: string, port: number, description: string): Promise<boolean> {
    const rows = await m.query(
      `INSERT INTO ssh_resources (org_id, name, name_key, address, port, description)
       VALUES ($1, $2, lower($2), $3, $4, $5) ON CONFLICT (org_id, name_key) DO NOTHING RETURNING id`,
      [orgId, name, address, port, description],
    );
    return rows.length > 0;
  }

  /** Makes the recorded login users of a host exactly `userNames`. */
  async replaceUsers(m: EntityManager, orgId: number, resourceId: number, userNames: string[]): Promise<void> {
    await m.query(
      `DELETE FROM ssh_users u USING ssh_resources r
       WHERE r.id = u.ssh_resource_id AND r.org_id = $1 AND u.ssh_resource_id = $2 AND NOT (u.user_name = ANY($3::text[]))`,
      [orgId, resourceId, userNames],
    );
    await m.query(
      `INSERT INTO ssh_users (ssh_resource_id, user_name)
       SELECT r.id, u FROM ssh_resources r CROSS JOIN unnest($3::text[]) AS u WHERE r.org_id = $1 AND r.id = $2 ON CONFLICT DO NOTHING`,
      [orgId, resourceId, userNames],
    );
  }

  listUsersInOrg(orgId: number): Promise<SshUserRow[]> {
    return this.dataSource.query(
      `SELECT u.user_name, r.name AS resource_name FROM ssh_users u JOIN ssh_resources r ON r.id = u.ssh_resource_id
       WHERE r.org_id = $1 ORDER BY r.name_key, u.user_name`,
      [orgId],
    );
  }
}
