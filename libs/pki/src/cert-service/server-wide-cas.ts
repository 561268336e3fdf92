import { EntityManager } from 'typeorm';
import { Actor } from '@app/audit';

/**
 * Whether the actor may change what the server-wide (built-in) CAs do for every
 * organisation: issue subordinates of them, or widen the names ACME may issue with them.
 * Their certificates are trusted by every organisation's clients, so only a super
 * administrator of the first (provider) organisation, which runs the server, may.
 */
export async function mayManageServerWideCas(m: EntityManager, actor: Pick<Actor, 'orgId' | 'isSuperAdmin'>): Promise<boolean> {
  return actor.isSuperAdmin && (await isProviderOrganisation(m, actor.orgId));
}

/** The first organisation, the one that installed and runs the server. */
export async function isProviderOrganisation(m: EntityManager, orgId: number): Promise<boolean> {
  const [org] = await m.query('SELECT $1::int = (SELECT min(id) FROM organizations) AS provider', [orgId]);
  return org.provider === true;
}
