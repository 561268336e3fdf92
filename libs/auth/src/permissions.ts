import { AppError, ErrorCode } from '@app/http';
import { RoleName } from '@app/persistence';

/** Named permissions; routes declare one, roles grant a set (the one table). */
export const Permission = {
  ResourceRead: 'resource.read',
  ResourceCreate: 'resource.create',
  ResourceManage: 'resource.manage',
  ResourceGroupManage: 'resourcegroup.manage',
  PasswordRetrieve: 'password.retrieve',
  PasswordChange: 'password.change',
  RequestApprove: 'request.approve',
  PolicyManage: 'policy.manage',
  UserManage: 'user.manage',
  AuditRead: 'audit.read',
  PkiRead: 'pki.read',
  PkiManage: 'pki.manage',
  SettingsManage: 'settings.manage',
  /** GET /metrics (unless METRICS_PUBLIC): what a monitoring token needs. */
  MetricsRead: 'metrics.read',
} as const;
export type PermissionName = (typeof Permission)[keyof typeof Permission];

const ALL = Object.values(Permission);

export const ROLE_PERMISSIONS: Record<RoleName, readonly PermissionName[]> = {
  Administrator: ALL,
  'Privileged Administrator': ALL.filter((p) => p !== Permission.SettingsManage),
  'Password Administrator': [
    Permission.ResourceRead,
    Permission.ResourceCreate,
    Permission.ResourceManage,
    Permission.ResourceGroupManage,
    Permission.PasswordRetrieve,
    Permission.PasswordChange,
    Permission.RequestApprove,
    Permission.PkiRead,
    Permission.PkiManage,
  ],
  // Reads passwords shared to them and the audit trail; changes nothing.
  'Password Auditor': [Permission.ResourceRead, Permission.PasswordRetrieve, Permission.AuditRead, Permission.PkiRead],
  // Uses what is shared to them; a change also needs a modify share (checked per resource).
  'Password User': [Permission.ResourceRead, Permission.PasswordRetrieve, Permission.PasswordChange],
};

export function roleHas(role: string, permission: string): boolean {
  return (ROLE_PERMISSIONS[role as RoleName] ?? []).includes(permission as PermissionName);
}

/** The roles holding `permission`: what a statement that admits callers in SQL compares a role with. */
export function rolesWith(permission: string): string[] {
  return Object.entries(ROLE_PERMISSIONS)
    .filter(([, permissions]) => (permissions as readonly string[]).includes(permission))
    .map(([role]) => role);
}

/** Permissions that administrators of the organisation hold; used e.g. to pick approvers. */
export function isAdministrativeRole(role: string): boolean {
  return role === 'Administrator' || role === 'Privileged Administrator';
}

/**
 * For operations whose need depends on the input (a public export is a read, a private
 * key export is not): refuses with the same message as the guard.
 */
export function assertPermission(actor: { role: string }, permission: PermissionName): void {
  if (!roleHas(actor.role, permission)) {
    throw new AppError(ErrorCode.Forbidden, `Your role (${actor.role}) does not allow this operation`);
  }
}
