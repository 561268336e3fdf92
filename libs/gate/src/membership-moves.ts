import { EntityManager } from 'typeorm';
import { Actor } from '@app/audit';
import { AppError } from '@app/http';

/** A resource group as the rule on who may change it reads it. */
export interface EditableGroup {
  name: string;
  created_by: number | null;
}

/** Who may change a resource group's members or definition: its creator or a super administrator. */
export function mayEditResourceGroup(actor: Actor, group: EditableGroup): boolean {
  return actor.isSuperAdmin || group.created_by === actor.id;
}

interface Membership {
  resource_id: number;
  resource_name: string;
  group_id: number;
  group_name: string;
  created_by: number | null;
}

/** What an allowed edit moved, for its audit row ('' when nothing moved). */
export interface MembershipMoves {
  description: string;
}

/**
 * Runs `change` (an edit of resources or their accounts, in transaction `m`) and refuses it
 * when it makes any of `resourceIds` enter or leave a rule-based resource group that the
 * actor could not edit directly: a group's shares and its help-desk restriction reach every
 * member, so moving a resource by editing an attribute a rule reads (a name, type, DNS name,
 * an account's name...) is a membership change. Refused: Failed naming the group, and the
 * transaction rolls back. The membership is the triggers' table (resource_group_membership),
 * read before and after under the organisation's shared membership lock, so a concurrent
 * change of a group's rules cannot pass for a move made by this edit.
 */
export async function guardMembershipMoves<T>(
  m: EntityManager,
  actor: Actor,
  resourceIds: number[],
  change: () => Promise<T>,
): Promise<{ result: T; moves: MembershipMoves }> {
  await m.query('SELECT lock_group_membership(ARRAY[$1::int], false)', [actor.orgId]);
  const before = await dynamicMemberships(m, resourceIds);
  const result = await change();
  const after = await dynamicMemberships(m, resourceIds);
  const key = (x: Membership) => `${x.resource_id}:${x.group_id}`;
  const had = new Set(before.map(key));
  const has = new Set(after.map(key));
  const entered = after.filter((x) => !had.has(key(x)));
  const left = before.filter((x) => !has.has(key(x)));
  for (const [moves, verb] of [[left, 'leave'], [entered, 'enter']] as const) {
    const refused = moves.find((x) => !mayEditResourceGroup(actor, { name: x.group_name, created_by: x.created_by }));
    if (refused) {
      throw AppError.forbidden(
        `This change would make resource ${refused.resource_name} ${verb} resource group ${refused.group_name}, which only its creator or a super administrator can change`,
      );
    }
  }
  const describe = (xs: Membership[], verb: string) => xs.map((x) => `${x.resource_name} ${verb} resource group ${x.group_name}`);
  return { result, moves: { description: [...describe(entered, 'entered'), ...describe(left, 'left')].join('; ') } };
}

function dynamicMemberships(m: EntityManager, resourceIds: number[]): Promise<Membership[]> {
  return m.query(
    `SELECT m.resource_id, r.name AS resource_name, g.id AS group_id, g.name AS group_name, g.created_by
     FROM resource_group_membership m JOIN resource_groups g ON g.id = m.group_id JOIN resources r ON r.id = m.resource_id
     WHERE m.resource_id = ANY ($1::int[]) AND g.kind <> 'static'`,
    [resourceIds],
  );
}

/** An audit description with the moves appended. */
export function withMoves(description: string, moves: MembershipMoves): string {
  return [description, moves.description].filter(Boolean).join('; ');
}
