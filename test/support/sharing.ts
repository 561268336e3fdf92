import { DataSource } from 'typeorm';

// Who may reach a resource, set up straight in SQL for tests of the gate's decision itself
// (the sharing routes have their own tests). Levels are 'view', 'modify' or 'fullaccess'.

/** A share of resource `resourceId` (or of one of its accounts) to user `userId`. */
export function shareToUser(ds: DataSource, resourceId: number, userId: number, level: string, accountId: number | null = null): Promise<unknown> {
  return ds.query('INSERT INTO shares (resource_id, account_id, user_id, access_type) VALUES ($1, $2, $3, $4)', [resourceId, accountId, userId, level]);
}

/** A new user group holding `userId`, and a share of the resource (or of one account) to it. */
export async function shareToNewUserGroup(
  ds: DataSource,
  orgId: number,
  name: string,
  userId: number,
  share: { resourceId: number; accountId?: number; level: string },
): Promise<unknown> {
  const [group] = await ds.query('INSERT INTO user_groups (org_id, name, name_key) VALUES ($1, $2, $2) RETURNING id', [orgId, name]);
  await ds.query('INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2)', [group.id, userId]);
  return ds.query('INSERT INTO shares (resource_id, account_id, user_group_id, access_type) VALUES ($1, $2, $3, $4)', [
    share.resourceId,
    share.accountId ?? null,
    group.id,
    share.level,
  ]);
}

/**
 * A new static resource group holding the resource; shared to `shareTo` at that level
 * when given; `noHelpdesk` sets the group's NoHelpDeskRetrieval.
 */
export async function newStaticGroupWith(
  ds: DataSource,
  orgId: number,
  name: string,
  resourceId: number,
  options: { shareTo?: { userId: number; level: string }; noHelpdesk?: boolean } = {},
): Promise<void> {
  const [group] = await ds.query(
    `INSERT INTO resource_groups (org_id, name, name_key, kind, no_helpdesk_retrieval) VALUES ($1, $2, $2, 'static', $3) RETURNING id`,
    [orgId, name, options.noHelpdesk ?? false],
  );
  await ds.query('INSERT INTO resource_group_members (group_id, resource_id) VALUES ($1, $2)', [group.id, resourceId]);
  if (options.shareTo) {
    await ds.query('INSERT INTO shares (resource_group_id, user_id, access_type) VALUES ($1, $2, $3)', [group.id, options.shareTo.userId, options.shareTo.level]);
  }
}

/** Access control on the whole resource, or on one of its accounts. */
export function putUnderAccessControl(ds: DataSource, resourceId: number, accountId: number | null = null): Promise<unknown> {
  return ds.query('INSERT INTO access_controls (resource_id, account_id) VALUES ($1, $2)', [resourceId, accountId]);
}
