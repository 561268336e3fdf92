import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { AppError, ParsedRequest } from '@app/http';

/**
 * The organisation a user-name operation acts in (spec §5.4, header orgName): the caller's
 * own by default. Only a super administrator of the first (provider) organisation may name
 * another; for anyone else another organisation answers exactly like one that does not exist.
 */
export async function resolveOrg(dataSource: DataSource, actor: Actor, orgName: string | undefined): Promise<number> {
  const name = orgName?.trim();
  if (!name || name.toLowerCase() === actor.orgName.toLowerCase()) return actor.orgId;
  const [org] = await dataSource.query(
    `SELECT o.id, $2::int = (SELECT min(id) FROM organizations) AS provider FROM organizations o WHERE lower(o.name) = lower($1)`,
    [name, actor.orgId],
  );
  if (!org || !(actor.isSuperAdmin && org.provider)) throw AppError.notFound(`No organisation named ${name.slice(0, 100)}`);
  return org.id;
}

export function orgHeader(req: ParsedRequest): string | undefined {
  const value = req.headers['orgname'];
  return Array.isArray(value) ? value[0] : value;
}
