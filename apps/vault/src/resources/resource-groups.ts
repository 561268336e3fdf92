import { EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError } from '@app/http';

/** Op 6 rule 2: the resource joins the static group of that name, created when missing. */
export async function joinStaticGroup(m: EntityManager, audit: AuditWriter, actor: Actor, groupName: string, resourceId: number): Promise<void> {
  const created: { id: number }[] = await m.query(
    `INSERT INTO resource_groups (org_id, name, name_key, kind, created_by) VALUES ($1, $2, lower($2), 'static', $3)
     ON CONFLICT (org_id, name_key) DO NOTHING RETURNING id`,
    [actor.orgId, groupName, actor.id],
  );
  let groupId = created[0]?.id;
  if (groupId) {
    await audit.record(
      { category: 'Resource', operation: AuditOperation.ResourceGroupCreated, actor, target: groupName, description: 'static group created with a new resource' },
      m,
    );
  } else {
    const [group] = await m.query('SELECT id, name, kind FROM resource_groups WHERE org_id = $1 AND name_key = lower($2)', [actor.orgId, groupName]);
    if (group.kind !== 'static') {
      throw AppError.invalid(`RESOURCEGROUPNAME: ${group.name} is a dynamic resource group; its members follow its criteria`);
    }
    groupId = group.id;
  }
  await m.query('INSERT INTO resource_group_members (group_id, resource_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [groupId, resourceId]);
}
