import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppError } from '@app/http';

export interface UserGroupRef {
  id: number;
  name: string;
  created: boolean;
}

/** User groups of one organisation: created on first use (op 44), membership idempotent. */
@Injectable()
export class UserGroupsService {
  constructor(private readonly dataSource: DataSource) {}

  async ensure(m: EntityManager, orgId: number, name: string): Promise<UserGroupRef> {
    const [inserted] = await m.query(
      `INSERT INTO user_groups (org_id, name, name_key) VALUES ($1, $2, lower($2))
       ON CONFLICT (org_id, name_key) DO NOTHING RETURNING id, name`,
      [orgId, name],
    );
    if (inserted) return { id: inserted.id, name: inserted.name, created: true };
    const [existing] = await m.query('SELECT id, name FROM user_groups WHERE org_id = $1 AND name_key = lower($2)', [orgId, name]);
    return { id: existing.id, name: existing.name, created: false };
  }

  /** True when the user was added, false when already a member. */
  async addMember(m: EntityManager, groupId: number, userId: number): Promise<boolean> {
    const rows = await m.query(
      'INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING user_id',
      [groupId, userId],
    );
    return rows.length > 0;
  }

  /** A group of the organisation by name (any case), or a Failed answer naming it. */
  async requireByName(orgId: number, name: string): Promise<{ id: number; name: string }> {
    const [group] = await this.dataSource.query('SELECT id, name FROM user_groups WHERE org_id = $1 AND name_key = lower($2)', [orgId, name.trim()]);
    if (!group) throw AppError.notFound(`No user group named ${name.trim().slice(0, 100)} found`);
    return group;
  }

  /** A group of the organisation by id, or the same answer as a missing one. */
  async require(orgId: number, groupId: number): Promise<{ id: number; name: string }> {
    const [group] = await this.dataSource.query('SELECT id, name FROM user_groups WHERE id = $1 AND org_id = $2', [groupId, orgId]);
    if (!group) throw AppError.notFound('No such user group found');
    return group;
  }
}
