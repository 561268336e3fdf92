import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { actorInOrg } from '@app/auth';

export { orgHeader } from '@app/auth';

/**
 * The organisation a user-name operation acts in (spec §5.4, header orgName), by the one
 * rule of actorInOrg. The guard has already moved the actor there; this stays for callers
 * that were handed the header's value.
 */
export async function resolveOrg(dataSource: DataSource, actor: Actor, orgName: string | undefined): Promise<number> {
  return (await actorInOrg(dataSource, actor, orgName)).orgId;
}
