import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { hashToken } from '@app/crypto';
import {
  AppError,
  AUTH_FAILED_MESSAGE,
  clientIp,
  ErrorCode,
  extractToken,
  HOST_NOT_ALLOWED_MESSAGE,
  ParsedRequest,
  PERMISSION,
  PUBLIC,
  RouteAware,
} from '@app/http';
import { pgPool, prepared } from '@app/persistence';
import { FailedAuthThrottle } from './failed-auth-throttle';
import { isHostAllowed } from './host-binding';
import { roleHas } from './permissions';

const FIND_USER = `SELECT u.id, u.org_id, o.name AS org_name, u.username, u.role, u.is_super_admin, u.locked,
  u.allowed_hosts, (u.expires_on IS NOT NULL AND u.expires_on < current_date) AS expired
  FROM api_tokens t JOIN users u ON u.id = t.user_id JOIN organizations o ON o.id = u.org_id
  WHERE t.token_hash = $1`;

interface UserRow {
  id: number;
  org_id: number;
  org_name: string;
  username: string;
  role: string;
  is_super_admin: boolean;
  locked: boolean;
  allowed_hosts: string;
  expired: boolean;
}

export interface AuthedRequest extends ParsedRequest, RouteAware {
  actor?: Actor;
}

/**
 * Deny by default: every route needs a valid token and the permission it declares,
 * unless it is @Public(). The user is read from the database on every call, so deleting
 * or locking a user takes effect at once on every instance.
 */
@Injectable()
export class TokenGuard implements CanActivate {
  private readonly throttle = new FailedAuthThrottle();
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly reflector: Reflector,
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    req.route_ = { handler: context.getHandler(), controller: context.getClass() };
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, targets)) return true;
    const ip = clientIp(req);
    const token = extractToken(req);
    const rows = token
      ? await prepared<UserRow>(pgPool(this.dataSource), 'auth_find_user', FIND_USER, [hashToken(token)])
      : [];
    const user = rows[0];
    if (!user) return this.refuse(ip, req, new AppError(ErrorCode.AuthFailed, AUTH_FAILED_MESSAGE));
    if (user.locked) {
      return this.refuse(ip, req, new AppError(ErrorCode.UserLocked, 'User account is locked. Contact your administrator.'), user);
    }
    if (user.expired) {
      return this.refuse(ip, req, new AppError(ErrorCode.UserExpired, 'User account has expired. Contact your administrator.'), user);
    }
    if (!(await isHostAllowed(user.allowed_hosts, ip))) {
      return this.refuse(ip, req, new AppError(ErrorCode.HostNotAllowed, HOST_NOT_ALLOWED_MESSAGE), user);
    }
    req.actor = {
      id: user.id,
      orgId: user.org_id,
      orgName: user.org_name,
      username: user.username,
      role: user.role,
      isSuperAdmin: user.is_super_admin,
      ip,
      client: String(req.headers['user-agent'] ?? ''),
    };
    const permission = this.reflector.get<string>(PERMISSION, context.getHandler());
    if (!permission || !roleHas(user.role, permission)) {
      throw AppError.forbidden(`Your role (${user.role}) does not allow this operation`);
    }
    return true;
  }

  private async refuse(ip: string, req: ParsedRequest, error: AppError, user?: UserRow): Promise<never> {
    const delay = this.throttle.fail(ip);
    await this.audit
      .record({
        category: 'User',
        operation: AuditOperation.AuthenticationFailed,
        outcome: 'Failed',
        orgId: user?.org_id ?? null,
        actor: user ? { id: user.id, orgId: user.org_id, username: user.username, ip, client: '' } : null,
        target: user?.username ?? '',
        description: `${req.method} ${req.path}: ${error.message}`,
      })
      .catch((e: Error) => this.logger.error(`Could not audit a failed authentication: ${e.message}`));
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    throw error;
  }
}
