import { createApiUser } from '@app/server';
import { TestServices } from '../support/app';

/** A second organisation with its own super administrator, made as the admin CLI would. */
export async function createOrgWithAdmin(s: TestServices, name: string): Promise<{ orgId: number; adminId: number; token: string }> {
  const [org] = await s.dataSource.query('INSERT INTO organizations (name) VALUES ($1) RETURNING id', [name]);
  const { userId, token } = await createApiUser(s.dataSource, { orgId: org.id, username: 'admin', role: 'Administrator', superAdmin: true });
  return { orgId: org.id, adminId: userId, token };
}
