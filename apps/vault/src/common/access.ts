import { EntityManager } from 'typeorm';
import { Actor } from '@app/audit';
import { AppError } from '@app/http';
import { AccessLevel, resourceVisibleSql, visibilityParams } from '@app/gate';

export interface ResourceRow {
  id: number;
  org_id: number;
  owner_id: number;
  owner_name: string;
  name: string;
  type: string;
  description: string;
  dns_name: string;
  url: string;
  department: string;
  location: string;
  notes: string;
  password_policy: string;
}

export interface AccountRow {
  id: number;
  name: string;
  notes: string;
  password_policy: string;
  resource_id: number;
  resource_name: string;
  resource_type: string;
  org_id: number;
}

const LEVEL_WORDS: Record<AccessLevel, string> = { view: 'view', modify: 'modify', fullaccess: 'full' };

/**
 * The resource if the caller may see it (otherwise the same answer as a missing one), and
 * holds `need` on it (otherwise a Failed naming the access it lacks). `lock` takes a row lock.
 */
export async function findResource(
  m: EntityManager,
  actor: Actor,
  resourceId: number,
  need: AccessLevel = 'view',
  lock = false,
): Promise<ResourceRow> {
  const [row] = await m.query(
    `SELECT r.id, r.org_id, r.owner_id, u.username AS owner_name, r.name, r.type, r.description, r.dns_name, r.url,
       r.department, r.location, r.notes, r.password_policy,
       ${resourceVisibleSql('r', '$1', '$2', '$3', { atLeast: need })} AS allowed
     FROM resources r JOIN users u ON u.id = r.owner_id
     WHERE r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3')}${lock ? ' FOR UPDATE OF r' : ''}`,
    [...visibilityParams(actor), resourceId],
  );
  if (!row) throw AppError.notFound('No such resource found');
  if (!row.allowed) throw AppError.forbidden(`You need ${LEVEL_WORDS[need]} access to resource ${row.name} for this operation`);
  delete row.allowed;
  return row;
}

/** The account if the caller may see it and holds `need` on it; see findResource. */
export async function findAccount(
  m: EntityManager,
  actor: Actor,
  resourceId: number,
  accountId: number,
  need: AccessLevel = 'view',
  lock = false,
): Promise<AccountRow> {
  const [row] = await m.query(
    `SELECT a.id, a.name, a.notes, a.password_policy, r.id AS resource_id, r.name AS resource_name, r.type AS resource_type, r.org_id,
       ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a', atLeast: need })} AS allowed
     FROM accounts a JOIN resources r ON r.id = a.resource_id
     WHERE a.id = $5 AND r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })}${lock ? ' FOR UPDATE OF a' : ''}`,
    [...visibilityParams(actor), resourceId, accountId],
  );
  if (!row) throw AppError.notFound('No such account found');
  if (!row.allowed) throw AppError.forbidden(`You need ${LEVEL_WORDS[need]} access to account ${row.name} for this operation`);
  delete row.allowed;
  return row;
}
