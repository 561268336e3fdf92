import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditEvent, AuditOperation, AuditWriter } from '@app/audit';
import { DirectoryConfig, DirectoryRow } from './directory-config';
import { DirectoryGroup, DirectoryUser } from './directory-reader';
import { roleFor } from './directory-roles';

// One synchronisation of an organisation at a time, on any instance: a transaction lock per organisation.
const DIRECTORY_LOCK = 727265670;

export interface SyncResult {
  users: number;
  groups: number;
  created: number;
  updated: number;
  locked: number;
  unlocked: number;
  groupsCreated: number;
  membershipsAdded: number;
  membershipsRemoved: number;
  /** Directory names a local user or group already holds: left alone, never linked. */
  conflicts: string[];
}

interface VaultUser {
  id: number;
  username: string;
  email: string;
  full_name: string;
  role: string;
  locked: boolean;
  locked_by_directory: boolean;
  directory_guid: string;
  directory_dn: string;
}

const SYSTEM = { actor: null, category: 'User' as const };
const sameDn = (a: string, b: string) => a.toLowerCase().replace(/\s*,\s*/g, ',') === b.toLowerCase().replace(/\s*,\s*/g, ',');
const dnKey = (dn: string) => dn.toLowerCase().replace(/\s*,\s*/g, ',');

/**
 * Import and synchronisation (issue 37): the directory's users become vault users (USERNAME
 * from sAMAccountName, email, full name, the role of their groups), its groups become user
 * groups with the same directory members. Joins, leaves, renames and removals are applied and
 * audited as the system actor. A user gone from the directory, or disabled or locked out in
 * it, is locked in the vault (never deleted: their audit trail and shares stay); one the
 * directory re-enables is unlocked if the directory was what locked them. A directory name
 * that a local user or group already holds is never linked to it (a directory account named
 * `admin` does not become the vault's admin): it is reported as a conflict.
 */
@Injectable()
export class DirectorySync {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
    private readonly directories: DirectoryConfig,
  ) {}

  async sync(row: DirectoryRow, startedBy: string): Promise<SyncResult> {
    const reader = await this.directories.open(row, 'Directory synchronisation', startedBy);
    let users: DirectoryUser[];
    let groups: DirectoryGroup[];
    try {
      users = await reader.users();
      groups = await reader.groups();
    } finally {
      await reader.close();
    }
    return this.dataSource.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1, $2)', [DIRECTORY_LOCK, row.org_id]);
      const events: AuditEvent[] = [];
      const result: SyncResult = { users: users.length, groups: groups.length, created: 0, updated: 0, locked: 0, unlocked: 0, groupsCreated: 0, membershipsAdded: 0, membershipsRemoved: 0, conflicts: [] };
      const ids = await this.applyUsers(m, row, users, events, result);
      await this.applyGroups(m, row, users, groups, ids, events, result);
      await this.audit.recordMany(events.map((e) => ({ ...e, orgId: row.org_id })), m);
      await m.query('UPDATE directories SET last_sync_at = now(), last_sync_result = $2 WHERE org_id = $1', [row.org_id, JSON.stringify(result)]);
      const { conflicts, ...counts } = result;
      await this.audit.record(
        {
          ...SYSTEM,
          orgId: row.org_id,
          operation: AuditOperation.DirectorySynchronised,
          resourceId: row.resource_id,
          resourceName: row.resource_name,
          description: `${startedBy}: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}${conflicts.length ? `; conflicts: ${conflicts.slice(0, 20).join(', ')}` : ''}`,
        },
        m,
      );
      return result;
    });
  }

  /**
   * At a directory sign-in: the vault user linked to this directory user, created now when the
   * first sign-in comes before an import. Undefined when a local user holds the name.
   */
  async admit(row: DirectoryRow, user: DirectoryUser): Promise<number | undefined> {
    return this.dataSource.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1, $2)', [DIRECTORY_LOCK, row.org_id]);
      const [linked] = await m.query('SELECT id FROM users WHERE org_id = $1 AND directory_guid = $2', [row.org_id, user.guid]);
      if (linked) return linked.id as number;
      const events: AuditEvent[] = [];
      const result = { users: 1, created: 0, conflicts: [] as string[] } as SyncResult;
      const ids = await this.applyUsers(m, row, [user], events, result, false);
      const id = ids.get(user.guid);
      if (id === undefined) return undefined;
      // Into the directory groups already imported, so that their shares apply from the first page.
      const groups: { id: number; name: string }[] = await m.query(`SELECT id, name FROM user_groups WHERE org_id = $1 AND directory_guid IS NOT NULL AND directory_dn_key = ANY($2)`, [
        row.org_id,
        user.memberOf.map(dnKey),
      ]);
      for (const g of groups) {
        await m.query('INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [g.id, id]);
        events.push({ ...SYSTEM, operation: AuditOperation.UserAddedToGroup, target: user.username, description: `to ${g.name} (directory group)` });
      }
      await this.audit.recordMany(events.map((e) => ({ ...e, orgId: row.org_id })), m);
      return id;
    });
  }

  /** Creates, updates, locks and unlocks; returns the vault id of each linked directory user by GUID. */
  private async applyUsers(m: EntityManager, row: DirectoryRow, users: DirectoryUser[], events: AuditEvent[], result: SyncResult, removeMissing = true): Promise<Map<string, number>> {
    const existing: VaultUser[] = await m.query(
      `SELECT id, username, email, full_name, role, locked, locked_by_directory, directory_guid, directory_dn FROM users WHERE org_id = $1 AND directory_guid IS NOT NULL FOR UPDATE`,
      [row.org_id],
    );
    const byGuid = new Map(existing.map((u) => [u.directory_guid, u]));
    const taken = new Set<string>((await m.query('SELECT username_key FROM users WHERE org_id = $1 AND directory_guid IS NULL', [row.org_id])).map((r: { username_key: string }) => r.username_key));
    const ids = new Map<string, number>();
    const fresh: (DirectoryUser & { role: string })[] = [];
    for (const user of users) {
      const role = roleFor(user.memberOf, row.role_map, row.default_role);
      const known = byGuid.get(user.guid);
      if (!known) {
        if (taken.has(user.username.toLowerCase())) result.conflicts.push(user.username);
        else fresh.push({ ...user, role });
        continue;
      }
      ids.set(user.guid, known.id);
      await this.update(m, known, user, role, taken, events, result);
    }
    if (fresh.length) {
      const made: { id: number; directory_guid: string; username: string; role: string; locked: boolean }[] = await m.query(
        `INSERT INTO users (org_id, username, username_key, full_name, email, role, is_api_user, directory_guid, directory_dn, locked, locked_by_directory)
         SELECT $1, u.username, lower(u.username), u.full_name, u.email, u.role, false, u.guid, u.dn, u.barred, u.barred
         FROM jsonb_to_recordset($2::jsonb) AS u(username text, full_name text, email text, role text, guid text, dn text, barred boolean)
         ON CONFLICT (org_id, username_key) DO NOTHING
         RETURNING id, directory_guid, username, role, locked`,
        [row.org_id, JSON.stringify(fresh.map((u) => ({ username: u.username, full_name: u.fullName, email: u.email, role: u.role, guid: u.guid, dn: u.dn, barred: u.barred })))],
      );
      for (const u of made) {
        ids.set(u.directory_guid, u.id);
        events.push({ ...SYSTEM, operation: AuditOperation.UserCreated, target: u.username, description: `from the directory (${u.role})${u.locked ? ', locked: disabled or locked out in the directory' : ''}` });
      }
      result.created += made.length;
      // Two directory users whose names differ only in case: the second is a conflict.
      for (const u of fresh) if (!ids.has(u.guid)) result.conflicts.push(u.username);
    }
    if (removeMissing) {
      const present = new Set(users.map((u) => u.guid));
      for (const gone of existing.filter((u) => !present.has(u.directory_guid) && !u.locked)) {
        await m.query('UPDATE users SET locked = true, locked_by_directory = true, updated_at = now() WHERE id = $1', [gone.id]);
        events.push({ ...SYSTEM, operation: AuditOperation.UserLocked, target: gone.username, description: 'gone from the directory (kept, with its audit trail and shares)' });
        result.locked++;
      }
    }
    return ids;
  }

  private async update(m: EntityManager, known: VaultUser, user: DirectoryUser, role: string, taken: Set<string>, events: AuditEvent[], result: SyncResult): Promise<void> {
    const changes: string[] = [];
    let username = known.username;
    if (user.username !== known.username) {
      if (user.username.toLowerCase() !== known.username.toLowerCase() && taken.has(user.username.toLowerCase())) result.conflicts.push(user.username);
      else {
        changes.push(`renamed from ${known.username}`);
        username = user.username;
      }
    }
    if (user.email !== known.email) changes.push('email');
    if (user.fullName !== known.full_name) changes.push('full name');
    if (role !== known.role) changes.push(`role ${known.role} → ${role}`);
    if (!sameDn(user.dn, known.directory_dn)) changes.push('moved in the directory');
    if (changes.length) {
      await m.query(`UPDATE users SET username = $2, username_key = lower($2), email = $3, full_name = $4, role = $5, directory_dn = $6, updated_at = now() WHERE id = $1`, [
        known.id,
        username,
        user.email,
        user.fullName,
        role,
        user.dn,
      ]);
      events.push({ ...SYSTEM, operation: AuditOperation.UserModified, target: username, description: `from the directory: ${changes.join('; ')}` });
      result.updated++;
    }
    if (user.barred && !known.locked) {
      await m.query('UPDATE users SET locked = true, locked_by_directory = true WHERE id = $1', [known.id]);
      events.push({ ...SYSTEM, operation: AuditOperation.UserLocked, target: username, description: 'disabled or locked out in the directory' });
      result.locked++;
    } else if (!user.barred && known.locked && known.locked_by_directory) {
      await m.query('UPDATE users SET locked = false, locked_by_directory = false WHERE id = $1', [known.id]);
      events.push({ ...SYSTEM, operation: AuditOperation.UserUnlocked, target: username, description: 'enabled again in the directory' });
      result.unlocked++;
    }
  }

  private async applyGroups(m: EntityManager, row: DirectoryRow, users: DirectoryUser[], groups: DirectoryGroup[], ids: Map<string, number>, events: AuditEvent[], result: SyncResult): Promise<void> {
    const existing: { id: number; name: string; directory_guid: string }[] = await m.query(
      'SELECT id, name, directory_guid FROM user_groups WHERE org_id = $1 AND directory_guid IS NOT NULL FOR UPDATE',
      [row.org_id],
    );
    const byGuid = new Map(existing.map((g) => [g.directory_guid, g]));
    const taken = new Set<string>((await m.query('SELECT name_key FROM user_groups WHERE org_id = $1 AND directory_guid IS NULL', [row.org_id])).map((r: { name_key: string }) => r.name_key));
    const groupIdByDn = new Map<string, number>();
    const names = new Map<number, string>();
    for (const group of groups) {
      let known = byGuid.get(group.guid);
      if (!known) {
        if (taken.has(group.name.toLowerCase())) {
          result.conflicts.push(`group ${group.name}`);
          continue;
        }
        const [made] = await m.query(
          `INSERT INTO user_groups (org_id, name, name_key, directory_guid, directory_dn_key) VALUES ($1, $2, lower($2), $3, $4)
           ON CONFLICT (org_id, name_key) DO NOTHING RETURNING id, name, directory_guid`,
          [row.org_id, group.name, group.guid, dnKey(group.dn)],
        );
        if (!made) {
          result.conflicts.push(`group ${group.name}`);
          continue;
        }
        known = made;
        events.push({ ...SYSTEM, operation: AuditOperation.UserGroupCreated, target: group.name, description: 'from the directory' });
        result.groupsCreated++;
      } else {
        // Renamed or moved in the directory: follow it, unless a local group holds the new name.
        const [renamed] = (await m.query(
          `UPDATE user_groups SET name = $2, name_key = lower($2), directory_dn_key = $3 WHERE id = $1 AND (name <> $2 OR directory_dn_key IS DISTINCT FROM $3)
             AND NOT EXISTS (SELECT 1 FROM user_groups o WHERE o.org_id = user_groups.org_id AND o.name_key = lower($2) AND o.id <> $1) RETURNING name`,
          [known.id, group.name, dnKey(group.dn)],
        )) as [unknown[], number];
        if (renamed.length && known.name !== group.name) events.push({ ...SYSTEM, operation: AuditOperation.UserGroupModified, target: group.name, description: `from the directory: renamed from ${known.name}` });
      }
      groupIdByDn.set(dnKey(group.dn), known!.id);
      names.set(known!.id, group.name);
    }
    // Desired directory memberships, and the current ones between directory users and directory groups.
    const want = new Set<string>();
    for (const user of users) {
      const uid = ids.get(user.guid);
      if (uid === undefined) continue;
      for (const dn of user.memberOf) {
        const gid = groupIdByDn.get(dnKey(dn));
        if (gid !== undefined) want.add(`${gid}:${uid}`);
      }
    }
    const have: { group_id: number; user_id: number; username: string; group_name: string }[] = await m.query(
      `SELECT gm.group_id, gm.user_id, u.username, g.name AS group_name FROM user_group_members gm
         JOIN users u ON u.id = gm.user_id AND u.directory_guid IS NOT NULL JOIN user_groups g ON g.id = gm.group_id AND g.directory_guid IS NOT NULL
       WHERE g.org_id = $1`,
      [row.org_id],
    );
    const current = new Set(have.map((h) => `${h.group_id}:${h.user_id}`));
    const gone = have.filter((h) => !want.has(`${h.group_id}:${h.user_id}`));
    const added = [...want].filter((pair) => !current.has(pair)).map((pair) => pair.split(':').map(Number));
    if (gone.length) {
      await m.query(
        'DELETE FROM user_group_members gm USING unnest($1::int[], $2::int[]) AS x(g, u) WHERE gm.group_id = x.g AND gm.user_id = x.u',
        [gone.map((h) => h.group_id), gone.map((h) => h.user_id)],
      );
      for (const h of gone) events.push({ ...SYSTEM, operation: AuditOperation.UserRemovedFromGroup, target: h.username, description: `from ${h.group_name} (directory group)` });
    }
    if (added.length) {
      await m.query('INSERT INTO user_group_members (group_id, user_id) SELECT * FROM unnest($1::int[], $2::int[]) ON CONFLICT DO NOTHING', [added.map(([g]) => g), added.map(([, u]) => u)]);
      const usernames = new Map<number, string>((await m.query('SELECT id, username FROM users WHERE id = ANY($1)', [added.map(([, u]) => u)])).map((r: { id: number; username: string }) => [r.id, r.username]));
      for (const [g, u] of added) events.push({ ...SYSTEM, operation: AuditOperation.UserAddedToGroup, target: usernames.get(u) ?? String(u), description: `to ${names.get(g)} (directory group)` });
    }
    result.membershipsAdded += added.length;
    result.membershipsRemoved += gone.length;
  }
}
