import { Actor } from '@app/audit';

/**
 * The one definition of "owned by or shared to the caller", as a SQL predicate over a
 * resource alias. Parameters: $org, $uid, $super at the positions given. Every read and
 * write of resources and accounts goes through it.
 */
export function resourceVisibleSql(r: string, org: string, uid: string, superAdmin: string): string {
  return `(${r}.org_id = ${org} AND (${superAdmin} OR ${r}.owner_id = ${uid}))`;
}

export function visibilityParams(actor: Actor): [number, number, boolean] {
  return [actor.orgId, actor.id, actor.isSuperAdmin];
}
