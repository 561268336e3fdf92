import { Injectable } from '@nestjs/common';
import { hash } from 'bcrypt';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { complianceProblems, DEFAULT_POLICY_NAME } from '@app/crypto';
import { AppError, listReply, reply, Reply } from '@app/http';
import { isSelfOrControlled } from '@app/gate';
import { insertApiUser } from '@app/server';
import { UserGroupsService } from '../groups/user-groups.service';
import { PoliciesService } from '../policies/policies.service';
import { NewUser } from './new-user';
import { grantedOrgSql } from '@app/auth';
import { resolveOrg } from './org-scope';

const BCRYPT_COST = 12;

interface TargetUser {
  id: number;
  org_id: number;
  username: string;
  is_super_admin: boolean;
  locked: boolean;
}

/** Users of an organisation: create, find, delete, lock and group membership (ops 17, 22, 23, 42-46). */
@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly policies: PoliciesService,
    private readonly groups: UserGroupsService,
  ) {}

  async create(actor: Actor, user: NewUser): Promise<Reply> {
    if (user.superAdmin && !actor.isSuperAdmin) throw AppError.forbidden('Only a super administrator can create a super administrator');
    if (user.superAdmin && user.role !== 'Administrator') throw AppError.invalid('A super administrator must have the Administrator role');
    const policy = await this.policies.require(actor.orgId, user.policy ?? DEFAULT_POLICY_NAME, 'POLICY');
    if (user.password !== undefined) {
      const problems = complianceProblems(policy, user.password);
      if (problems.length) throw AppError.invalid(`PASSWORD does not meet the password policy ${policy.name}: ${problems.join('; ')}`);
    }
    const passwordHash = user.password === undefined ? null : await hash(user.password, BCRYPT_COST);
    const created = await this.dataSource
      .transaction(async (m) => {
        const [existing] = await m.query('SELECT id FROM users WHERE org_id = $1 AND username_key = lower($2)', [actor.orgId, user.username]);
        if (existing) throw AppError.conflict(`User ${user.username} already exists`);
        const { id, token } = await this.insert(m, actor, user, policy.name, passwordHash);
        await this.audit.record(
          {
            category: 'User',
            operation: AuditOperation.UserCreated,
            actor,
            target: user.username,
            description: `${user.apiUser ? 'API user' : 'User'} ${user.username} (${user.role}${user.superAdmin ? ', super administrator' : ''})`,
          },
          m,
        );
        if (token) await this.audit.record({ category: 'User', operation: AuditOperation.ApiTokenCreated, actor, target: user.username }, m);
        return { id, token };
      })
      .catch(rethrowDuplicate(user.username));
    const details: Record<string, string> = { USERID: String(created.id) };
    if (created.token) details.AUTHTOKEN = created.token;
    return reply(`User ${user.username} added successfully`, details);
  }

  async userId(actor: Actor, orgName: string | undefined, username: string): Promise<Reply> {
    const orgId = await resolveOrg(this.dataSource, actor, orgName);
    const user = await this.findByName(this.dataSource.manager, orgId, username);
    return reply('User ID fetched successfully', { USERID: String(user.id) });
  }

  /** The guard has moved the actor into the organisation orgName names. */
  async userGroupId(actor: Actor, groupName: string): Promise<Reply> {
    const group = await this.groups.requireByName(actor.orgId, groupName);
    return reply('User group ID fetched successfully', { USERGROUPID: String(group.id) });
  }

  /**
   * The organisations the caller may act in (actorInOrg's rule): its own, and for a user of
   * the first (provider) organisation every one when a super administrator, else those it
   * was granted.
   */
  async organizations(actor: Actor): Promise<Reply> {
    const home = actor.homeOrgId ?? actor.orgId;
    const rows: { id: number; name: string }[] = await this.dataSource.query(
      `SELECT o.id, o.name FROM organizations o
       WHERE o.id = $1 OR ($1 = (SELECT min(id) FROM organizations) AND ($2 OR ${grantedOrgSql('o.id', '$3')})) ORDER BY o.id`,
      [home, actor.isSuperAdmin, actor.id],
    );
    return listReply('Organizations fetched successfully', rows.map((o) => ({ orgId: String(o.id), orgName: o.name, displayName: o.name })));
  }

  async deleteById(actor: Actor, orgName: string | undefined, userId: number): Promise<Reply> {
    const orgId = await resolveOrg(this.dataSource, actor, orgName);
    return this.delete(actor, orgId, (m) => this.findById(m, orgId, userId));
  }

  async deleteByName(actor: Actor, orgName: string | undefined, username: string): Promise<Reply> {
    const orgId = await resolveOrg(this.dataSource, actor, orgName);
    return this.delete(actor, orgId, (m) => this.findByName(m, orgId, username, true));
  }

  /** Lock or unlock; the guard reads the user on every call, so it takes effect at once everywhere. */
  async setLocked(actor: Actor, orgName: string | undefined, username: string, locked: boolean): Promise<Reply> {
    const orgId = await resolveOrg(this.dataSource, actor, orgName);
    const name = await this.dataSource.transaction(async (m) => {
      const user = await this.findByName(m, orgId, username, true);
      this.mayActOn(actor, user, locked ? 'lock' : 'unlock');
      await m.query('UPDATE users SET locked = $2, updated_at = now() WHERE id = $1', [user.id, locked]);
      await this.audit.record(
        { category: 'User', operation: locked ? AuditOperation.UserLocked : AuditOperation.UserUnlocked, actor, orgId, target: user.username },
        m,
      );
      return user.username;
    });
    return reply(`User ${name} ${locked ? 'locked' : 'unlocked'} successfully`);
  }

  async addToGroup(actor: Actor, orgName: string | undefined, username: string, groupName: string): Promise<Reply> {
    const orgId = await resolveOrg(this.dataSource, actor, orgName);
    const message = await this.dataSource.transaction(async (m) => {
      const user = await this.findByName(m, orgId, username);
      await this.refuseSelfJoin(m, actor, orgId, user, groupName);
      const group = await this.groups.ensure(m, orgId, groupName);
      await this.refusePowerfulGroup(m, actor, orgId, user, group);
      const added = await this.groups.addMember(m, group.id, user.id);
      if (!added) return `User ${user.username} is already a member of the user group ${group.name}`;
      await this.audit.record(
        {
          category: 'User',
          operation: AuditOperation.UserAddedToGroup,
          actor,
          orgId,
          target: user.username,
          description: `${group.created ? 'new ' : ''}user group ${group.name}`,
        },
        m,
      );
      return `User ${user.username} added to the user group ${group.name} successfully`;
    });
    return reply(message);
  }

  /**
   * No self-elevation (issue 24): a user group's shares reach its members, so only a super
   * administrator adds themselves to one. Audited on its own connection (it outlives the rollback).
   */
  private async refuseSelfJoin(m: EntityManager, actor: Actor, orgId: number, user: { id: number; username: string }, groupName: string): Promise<void> {
    if (actor.isSuperAdmin || !(await isSelfOrControlled(m, user.id, actor.id))) return;
    await this.audit.record({
      category: 'User',
      operation: AuditOperation.UserAddedToGroup,
      outcome: 'Failed',
      actor,
      orgId,
      target: user.username,
      description: `refused: adding oneself to user group ${groupName}`,
    });
    throw AppError.forbidden(
      user.id === actor.id
        ? 'Only a super administrator can add themselves to a user group'
        : `Only a super administrator can add ${user.username} to a user group: it is an account you created, which counts as you`,
    );
  }

  /**
   * A member of a user group gets what the group holds (shares, approver rights, access to
   * another organisation): adding one to such a group is a super administrator's (issue 34).
   * Removing members stays open. Audited on its own connection (it outlives the rollback).
   */
  private async refusePowerfulGroup(m: EntityManager, actor: Actor, orgId: number, user: { username: string }, group: { id: number; name: string }): Promise<void> {
    if (actor.isSuperAdmin) return;
    const [held] = await m.query(
      `SELECT EXISTS (SELECT 1 FROM shares WHERE user_group_id = $1) AS shares,
              EXISTS (SELECT 1 FROM access_controls WHERE $1 = ANY(approver_group_ids)) AS approves,
              EXISTS (SELECT 1 FROM organization_access WHERE user_group_id = $1) AS organisations`,
      [group.id],
    );
    const carries = [held.shares && 'shares', held.approves && 'approver rights', held.organisations && 'access to another organisation'].filter(Boolean);
    if (carries.length === 0) return;
    await this.audit.record({
      category: 'User',
      operation: AuditOperation.UserAddedToGroup,
      outcome: 'Failed',
      actor,
      orgId,
      target: user.username,
      description: `refused: user group ${group.name} carries ${carries.join(', ')}`,
    });
    throw AppError.forbidden(`Only a super administrator can add members to the user group ${group.name}: it carries ${carries.join(', ')}`);
  }

  private async insert(
    m: EntityManager,
    actor: Actor,
    user: NewUser,
    policy: string,
    passwordHash: string | null,
  ): Promise<{ id: number; token?: string }> {
    let id: number;
    let token: string | undefined;
    if (user.apiUser) {
      // The creation's one audit row is create()'s, which names the actor.
      const made = await insertApiUser(m, {
        orgId: actor.orgId,
        username: user.username,
        role: user.role,
        superAdmin: user.superAdmin,
        allowedHosts: user.allowedHosts,
        fullName: user.fullName,
      });
      id = made.userId;
      token = made.token;
    } else {
      [{ id }] = await m.query(
        `INSERT INTO users (org_id, username, username_key, full_name, role, is_super_admin, is_api_user, allowed_hosts)
         VALUES ($1, $2, lower($2), $3, $4, $5, false, $6) RETURNING id`,
        [actor.orgId, user.username, user.fullName, user.role, user.superAdmin, user.allowedHosts],
      );
    }
    // Its creator held its first token or password: the account is theirs to use (issue 34).
    await m.query(
      `UPDATE users SET first_name = $2, last_name = $3, email = $4, department = $5, location = $6, policy = $7,
         expires_on = $8, password_hash = $9, profile = $10, controller_id = $11 WHERE id = $1`,
      [id, user.firstName, user.lastName, user.email, user.department, user.location, policy, user.expiresOn, passwordHash, user.profile, actor.id || null],
    );
    return { id, token };
  }

  private async delete(actor: Actor, orgId: number, find: (m: EntityManager) => Promise<TargetUser>): Promise<Reply> {
    const name = await this.dataSource.transaction(async (m) => {
      const user = await find(m);
      this.mayActOn(actor, user, 'delete');
      const [{ n }] = await m.query('SELECT count(*)::int AS n FROM resources WHERE owner_id = $1', [user.id]);
      if (n > 0) throw AppError.conflict(`User ${user.username} owns ${n} resource(s); transfer or delete them first`);
      await m.query('DELETE FROM users WHERE id = $1', [user.id]);
      await this.audit.record({ category: 'User', operation: AuditOperation.UserDeleted, actor, orgId, target: user.username }, m);
      return user.username;
    });
    return reply(`User ${name} deleted successfully`);
  }

  private mayActOn(actor: Actor, user: TargetUser, action: string): void {
    if (user.id === actor.id) throw AppError.forbidden(`You cannot ${action} your own user account`);
    if (user.is_super_admin && !actor.isSuperAdmin) throw AppError.forbidden(`Only a super administrator can ${action} a super administrator`);
  }

  private async findByName(m: EntityManager, orgId: number, username: string, forUpdate = false): Promise<TargetUser> {
    const [user] = await m.query(
      `SELECT id, org_id, username, is_super_admin, locked FROM users WHERE org_id = $1 AND username_key = lower($2)${forUpdate ? ' FOR UPDATE' : ''}`,
      [orgId, username.trim()],
    );
    if (!user) throw AppError.notFound(`No user named ${username.trim().slice(0, 100)} found`);
    return user;
  }

  private async findById(m: EntityManager, orgId: number, userId: number): Promise<TargetUser> {
    const [user] = await m.query('SELECT id, org_id, username, is_super_admin, locked FROM users WHERE org_id = $1 AND id = $2 FOR UPDATE', [
      orgId,
      userId,
    ]);
    if (!user) throw AppError.notFound('No such user found');
    return user;
  }
}

/** Two creates racing for one name: the unique index decides, the loser gets the same message. */
function rethrowDuplicate(username: string) {
  return (error: unknown): never => {
    if ((error as { code?: string }).code === '23505') throw AppError.conflict(`User ${username} already exists`);
    throw error;
  };
}
