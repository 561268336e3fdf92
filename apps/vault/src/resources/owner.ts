import { EntityManager } from 'typeorm';
import { Actor } from '@app/audit';
import { AppError } from '@app/http';

const OWNER_ROLES = ['Administrator', 'Password Administrator', 'Privileged Administrator'];

/**
 * Op 6 rule 1: OWNERNAME names an administrator of the caller's organisation; a directory
 * user arrives as DOMAIN\user and is matched by the part after the backslash.
 */
export async function resolveOwner(m: EntityManager, actor: Actor, ownerName: string | undefined): Promise<{ id: number; username: string }> {
  if (!ownerName) return { id: actor.id, username: actor.username };
  const username = ownerName.slice(ownerName.lastIndexOf('\\') + 1).trim();
  const [user] = await m.query('SELECT id, username, role FROM users WHERE org_id = $1 AND username_key = lower($2)', [actor.orgId, username]);
  if (!user) throw AppError.invalid(`OWNERNAME: no user named ${username}`);
  if (!OWNER_ROLES.includes(user.role)) {
    throw AppError.invalid(`OWNERNAME: ${user.username} is a ${user.role}; the owner must be an ${OWNER_ROLES.join(', ').replace(/, ([^,]*)$/, ' or $1')}`);
  }
  return { id: user.id, username: user.username };
}
