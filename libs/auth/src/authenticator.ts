import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { hashToken } from '@app/crypto';
import { AppError, AUTH_FAILED_MESSAGE, clientIp, ErrorCode, extractToken, HOST_NOT_ALLOWED_MESSAGE, ParsedRequest } from '@app/http';
import { pgPool, prepared } from '@app/persistence';
import { FailedAuthLedger } from './failed-auth-ledger';
import { FailedAuthThrottle } from './failed-auth-throttle';
import { isHostAllowed } from './host-binding';
import { actorInOrg, ORG_HEADER_SCOPE, orgHeader } from './org-scope';
import { roleHas } from './permissions';

/** The user behind a token, as every authentication path reads it. */
export const CALLER_COLUMNS = `u.id, u.org_id, o.name AS org_name, u.username, u.role, u.is_super_admin, u.locked,
  u.allowed_hosts, (u.expires_on IS NOT NULL AND u.expires_on < current_date) AS expired`;
export const CALLER_FROM = `api_tokens t JOIN users u ON u.id = t.user_id JOIN organizations o ON o.id = u.org_id`;
const FIND_USER = `SELECT ${CALLER_COLUMNS} FROM ${CALLER_FROM} WHERE t.token_hash = $1`;

/** The look-up made before a request's body was read, for that request's guard. */
const earlyLookups = new WeakMap<ParsedRequest, { token: string; user: CallerRow | undefined; at: number }>();
/**
 * How long the early look-up stands for the guard's. A body that took longer to arrive is
 * followed by a fresh read: the user may have been locked or deleted meanwhile, and a slow
 * upload must not stretch the moment a lock takes effect.
 */
const EARLY_LOOKUP_FRESH_MS = 1000;

export interface CallerRow {
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

/**
 * Turns a request's token into an Actor, or refuses (slowed down after repeated failures
 * from one address, and audited per source: FailedAuthLedger). The user is read from the database on every call,
 * so deleting or locking a user takes effect at once on every instance.
 */
@Injectable()
export class Authenticator {
  private readonly throttle = new FailedAuthThrottle();
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: FailedAuthLedger,
    @Optional() @Inject(ORG_HEADER_SCOPE) private readonly orgHeaderScope = false,
  ) {}

  async authenticate(req: ParsedRequest, permission: string | undefined): Promise<Actor> {
    const token = extractToken(req);
    const early = earlyLookups.get(req);
    earlyLookups.delete(req);
    const fresh = early !== undefined && early.token === token && performance.now() - early.at <= EARLY_LOOKUP_FRESH_MS;
    const user = !token ? undefined : fresh ? early.user : await this.findUser(token);
    if (!user) return this.refuseUnknown(req);
    return this.admit(user, req, permission);
  }

  /**
   * Whether the token's user would be admitted (known, not locked or expired, calling from
   * an allowed host); asked before more than a little of a request's body is read (no
   * audit: the guard refuses later). The row read here serves that request's guard, so a
   * request with a body reads its user once, not twice; except after a multipart body,
   * whose upload can take long enough for the user to be locked meanwhile, or any body that
   * took longer than EARLY_LOOKUP_FRESH_MS: read again then.
   */
  async isAdmissible(token: string, req: ParsedRequest): Promise<boolean> {
    const user = await this.findUser(token);
    if (!/^multipart\//i.test(req.headers['content-type'] ?? '')) earlyLookups.set(req, { token, user, at: performance.now() });
    return user !== undefined && !user.locked && !user.expired && (await isHostAllowed(user.allowed_hosts, clientIp(req)));
  }

  private async findUser(token: string): Promise<CallerRow | undefined> {
    const rows = await prepared<CallerRow>(pgPool(this.dataSource), 'auth_find_user', FIND_USER, [hashToken(token)]);
    return rows[0];
  }

  /** The checks after the look-up: lock, expiry, host binding, the permission, then the organisation (orgName). */
  async admit(user: CallerRow, req: ParsedRequest, permission: string | undefined): Promise<Actor> {
    const ip = clientIp(req);
    if (user.locked) {
      return this.refuse(req, new AppError(ErrorCode.UserLocked, 'User account is locked. Contact your administrator.'), user);
    }
    if (user.expired) {
      return this.refuse(req, new AppError(ErrorCode.UserExpired, 'User account has expired. Contact your administrator.'), user);
    }
    if (!(await isHostAllowed(user.allowed_hosts, ip))) {
      return this.refuse(req, new AppError(ErrorCode.HostNotAllowed, HOST_NOT_ALLOWED_MESSAGE), user);
    }
    if (!permission || !roleHas(user.role, permission)) {
      throw AppError.forbidden(`Your role (${user.role}) does not allow this operation`);
    }
    const actor = actorOf(user, req);
    return this.orgHeaderScope ? actorInOrg(this.dataSource, actor, orgHeader(req)) : actor;
  }

  /**
   * A failed console sign-in (wrong user name, password or second factor): the same throttle
   * and ledger as a bad token, so guessing through the console is no cheaper than through the API.
   */
  refuseSignIn(req: ParsedRequest, user?: CallerRow): Promise<never> {
    return this.refuse(req, new AppError(ErrorCode.AuthFailed, 'Sign-in failed: wrong user name, password or code'), user);
  }

  /** The user a console session belongs to, read as every authentication path reads it. */
  async callerById(userId: number): Promise<CallerRow | undefined> {
    const [row] = await this.dataSource.query(`SELECT ${CALLER_COLUMNS} FROM users u JOIN organizations o ON o.id = u.org_id WHERE u.id = $1`, [userId]);
    return row;
  }

  refuseUnknown(req: ParsedRequest): Promise<never> {
    return this.refuse(req, new AppError(ErrorCode.AuthFailed, AUTH_FAILED_MESSAGE));
  }

  /**
   * The throttle acts first: a flood from one address waits before it writes anything, and
   * then adds to its source's count (FailedAuthLedger) rather than a row per failure.
   */
  private async refuse(req: ParsedRequest, error: AppError, user?: CallerRow): Promise<never> {
    const ip = clientIp(req);
    const delay = this.throttle.fail(ip);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    await this.ledger
      .record({ ip, user: user && { id: user.id, orgId: user.org_id, username: user.username }, description: `${req.method} ${req.path}: ${error.message}` })
      .catch((e: Error) => this.logger.error(`Could not audit a failed authentication: ${e.message}`));
    throw error;
  }
}

export function actorOf(user: CallerRow, req: ParsedRequest): Actor {
  return {
    id: user.id,
    orgId: user.org_id,
    orgName: user.org_name,
    username: user.username,
    role: user.role,
    isSuperAdmin: user.is_super_admin,
    ip: clientIp(req),
    client: String(req.headers['user-agent'] ?? ''),
  };
}
