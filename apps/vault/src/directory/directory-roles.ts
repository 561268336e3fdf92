import { ROLE_PERMISSIONS } from '@app/auth';
import type { RoleName } from '@app/persistence';

/** The value of a DN's first RDN: `CN=Vault Admins,OU=Groups,...` → `Vault Admins`. */
export function firstRdnValue(dn: string): string {
  const first = /^\s*[A-Za-z][\w-]*\s*=\s*((?:\\.|[^,+])*)/.exec(dn)?.[1] ?? '';
  return first.replace(/\\(.)/g, '$1').trim();
}

/**
 * The role the directory gives a user: of the roles their groups map to (ROLEMAP, by group
 * name, case-insensitive), the one with the most permissions; else the default role. Never a
 * super administrator: that stays a decision made in the vault.
 */
export function roleFor(memberOf: string[], roleMap: Record<string, string>, defaultRole: string): string {
  const rank = (role: string) => ROLE_PERMISSIONS[role as RoleName]?.length ?? 0;
  let best = defaultRole;
  for (const dn of memberOf) {
    const role = roleMap[firstRdnValue(dn).toLowerCase()];
    if (role && rank(role) > rank(best)) best = role;
  }
  return best;
}
