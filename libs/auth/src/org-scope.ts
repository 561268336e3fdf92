import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { AppError, ParsedRequest } from '@app/http';

/** Provided as true by the services that honour the orgName header on every operation (the vault). */
export const ORG_HEADER_SCOPE = Symbol('ORG_HEADER_SCOPE');

/** The orgName header (PAM360 documents it on every operation; the original interface on its user operations). */
export function orgHeader(req: ParsedRequest): string | undefined {
  const value = req.headers['orgname'];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The actor as it acts in the organisation the orgName header names: its own by default.
 * Only users of the first (provider) organisation may name another: a super administrator
 * acts there as its super administrator; a user granted access to it (POST
 * /organizations/manage, directly or through a user group) acts there under its own role,
 * not as a super administrator. Audit rows land in that organisation, under the caller's
 * own name. For anyone else another organisation answers exactly like one that does not
 * exist, so the header cannot be used to learn which organisations exist.
 */
export async function actorInOrg(dataSource: DataSource, actor: Actor, orgName: string | undefined): Promise<Actor> {
  const name = orgName?.trim();
  if (!name || name.toLowerCase() === actor.orgName.toLowerCase()) return actor;
  const [org] = await dataSource.query(
    `SELECT o.id, o.name, $2::int = (SELECT min(id) FROM organizations) AS provider, ${grantedOrgSql('o.id', '$3')} AS granted
     FROM organizations o WHERE lower(o.name) = lower($1)`,
    [name, actor.orgId, actor.id],
  );
  if (!org || !org.provider || !(actor.isSuperAdmin || org.granted)) throw AppError.notFound(`No organisation named ${name.slice(0, 100)}`);
  return { ...actor, orgId: org.id, orgName: org.name, homeOrgId: actor.homeOrgId ?? actor.orgId };
}

/** Whether user `uid` holds a grant to organisation `org`, directly or through one of its user groups. */
export function grantedOrgSql(org: string, uid: string): string {
  return `EXISTS (SELECT 1 FROM organization_access ga WHERE ga.org_id = ${org}
    AND (ga.user_id = ${uid} OR ga.user_group_id = ANY ((SELECT gu.user_group_ids FROM users gu WHERE gu.id = ${uid})::int[])))`;
}
