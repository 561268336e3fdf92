import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface DeploymentTargetRow {
  id: number;
  name: string;
  certificate_path: string;
  key_path: string;
  chain_path: string;
  reload_command: string;
  ssh_resource_id: number;
  address: string;
  port: number;
  login_user: string | null;
  login_password: Buffer | null;
}

export interface NewDeploymentTarget {
  orgId: number;
  name: string;
  sshResourceId: number;
  certificatePath: string;
  keyPath: string;
  chainPath: string;
  reloadCommand: string;
}

const COLUMNS = `t.id, t.name, t.certificate_path, t.key_path, t.chain_path, t.reload_command, t.ssh_resource_id,
  r.address, r.port, r.login_user, r.login_password`;

/** Deployment targets and the SSH resources (table shared with the SSH key service) they point at. */
@Injectable()
export class DeploymentRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findResource(m: EntityManager, orgId: number, name: string): Promise<{ id: number } | undefined> {
    const [row] = await m.query('SELECT id FROM ssh_resources WHERE org_id = $1 AND name_key = lower($2)', [orgId, name]);
    return row;
  }

  /**
   * Creates the SSH resource (named as the SSH service names them: host, or host:port off
   * port 22) or replaces its login, as applyCredentials does.
   */
  async saveResource(
    m: EntityManager,
    r: { orgId: number; name: string; address: string; port: number; userName: string; sealedPassword: Buffer },
  ): Promise<number> {
    const [row] = await m.query(
      `INSERT INTO ssh_resources (org_id, name, name_key, address, port, login_user, login_password)
       VALUES ($1, $2, lower($2), $3, $4, $5, $6)
       ON CONFLICT (org_id, name_key) DO UPDATE SET address = EXCLUDED.address, port = EXCLUDED.port,
         login_user = EXCLUDED.login_user, login_password = EXCLUDED.login_password
       RETURNING id`,
      [r.orgId, r.name, r.address, r.port, r.userName, r.sealedPassword],
    );
    return row.id;
  }

  async saveTarget(m: EntityManager, t: NewDeploymentTarget): Promise<boolean> {
    const [row] = await m.query(
      `INSERT INTO deployment_targets (org_id, name, name_key, ssh_resource_id, certificate_path, key_path, chain_path, reload_command)
       VALUES ($1, $2, lower($2), $3, $4, $5, $6, $7)
       ON CONFLICT (org_id, name_key) DO UPDATE SET name = EXCLUDED.name, ssh_resource_id = EXCLUDED.ssh_resource_id,
         certificate_path = EXCLUDED.certificate_path, key_path = EXCLUDED.key_path, chain_path = EXCLUDED.chain_path,
         reload_command = EXCLUDED.reload_command
       RETURNING (xmax = 0) AS created`,
      [t.orgId, t.name, t.sshResourceId, t.certificatePath, t.keyPath, t.chainPath, t.reloadCommand],
    );
    return row.created;
  }

  /** One target by name, or every target of the organisation. */
  listTargets(orgId: number, name?: string): Promise<DeploymentTargetRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM deployment_targets t JOIN ssh_resources r ON r.id = t.ssh_resource_id AND r.org_id = t.org_id
       WHERE t.org_id = $1 AND ($2::text IS NULL OR t.name_key = lower($2)) ORDER BY t.name_key`,
      [orgId, name ?? null],
    );
  }
}
