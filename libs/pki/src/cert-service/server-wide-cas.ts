import { EntityManager } from 'typeorm';
import { Actor } from '@app/audit';

/**
 * Whether the actor may change what the server-wide (built-in) CAs do for every
 * organisation: issue subordinates of them, or widen the names ACME may issue with them.
 * Their certificates are trusted by every organisation's clients, so only a super
 * administrator of the first (provider) organisation, which runs the server, may.
 */
export async function mayManageServerWideCas(m: EntityManager, actor: Pick<Actor, 'orgId' | 'isSuperAdmin'>): Promise<boolean> {
  if (!actor.isSuperAdmin) return false;
  const [org] = await m.query('SELECT $1::int = (SELECT min(id) FROM organizations) AS provider', [actor.orgId]);
  return org.provider === true;
}
