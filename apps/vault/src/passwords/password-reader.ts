import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { actorOf, AuthedRequest, Authenticator, CallerRow, orgHeader, Permission, rolesWith } from '@app/auth';
import { hashToken } from '@app/crypto';
import { ACCOUNT_USE_RULES, AccountSecretGate, decisionAuditCte, decisionCtes, TOKEN_CALLER, TOKEN_SLOTS } from '@app/gate';
import { AppError, clientIp, ErrorCode, extractToken, reply, Reply } from '@app/http';
import { pgPool, preparedArrays } from '@app/persistence';

const READ = ACCOUNT_USE_RULES.read;

// The hot path, GET .../password: the token look-up joins the gate's quick decision and
// its audit row, so a common read is one round trip. Only callers needing no check beyond
// SQL take it (TOKEN_CALLER's `fast`, with the roles granting password.retrieve); the
// others get `fast` false and go through the Authenticator, then
// the gate. The quick decision only grants (audited here); whatever it does not grant
// (resource-group shares, access control, every refusal) goes to the gate's full
// decision, which audits its own answer. One caller CTE serves both: each CTE level costs
// PostgreSQL executor start-up on every read.
const READ_AS_CALLER = `
WITH ${TOKEN_CALLER},
${decisionCtes(READ, TOKEN_SLOTS, undefined, { quick: true, callerColumns: true, admitted: 'c.fast' })},
${decisionAuditCte(READ, TOKEN_SLOTS, "''", { grantsOnly: true })}
SELECT c.id, c.org_id, c.org_name, c.username, c.role, c.is_super_admin, c.locked, c.allowed_hosts, c.expired, c.fast,
  (v.id IS NOT NULL AND v.refusal IS NULL) AS granted,
  CASE WHEN v.refusal IS NULL THEN v.password END AS password, (SELECT count(*) FROM logged)::int AS logged, v.member_name
FROM caller c LEFT JOIN verdict v ON true`;

/** READ_AS_CALLER's row, in its column order. */
type ReadRow = [
  id: number,
  org_id: number,
  org_name: string,
  username: string,
  role: string,
  is_super_admin: boolean,
  locked: boolean,
  allowed_hosts: string,
  expired: boolean,
  /** Whether SQL alone admits the caller (else the Authenticator does). */
  fast: boolean,
  /** Whether the quick decision granted the read (its audit row is then written). */
  granted: boolean,
  password: Buffer | null,
  logged: number,
  /** A two-account pair's current member. */
  member_name: string | null,
];

const RETRIEVE_ROLES = rolesWith(Permission.PasswordRetrieve);

export type PasswordRelease = { password: string; memberName?: string } | { refusal: string; message: string; details?: Record<string, string> };

/** GET PASSWORD on both entry points (lean route and controller) and the A2A look-up, through the gate. */
@Injectable()
export class PasswordReader {
  constructor(
    private readonly dataSource: DataSource,
    private readonly gate: AccountSecretGate,
    private readonly authenticator: Authenticator,
  ) {}

  /**
   * GET PASSWORD for the route that authenticates in this statement (the guard left it to
   * us): every path below either authenticates in SQL or through the Authenticator.
   */
  async readAsCaller(req: AuthedRequest, resourceId: number, accountId: number, reason = '', ticketId = ''): Promise<Reply> {
    const token = extractToken(req);
    if (!token) return this.authenticator.refuseUnknown(req);
    // The one statement decides in the caller's own organisation; orgName may move the caller
    // elsewhere (or be refused), which only the Authenticator decides.
    if (orgHeader(req)?.trim()) {
      req.actor = await this.authenticator.authenticate(req, Permission.PasswordRetrieve);
      return this.read(req.actor, resourceId, accountId, reason, ticketId);
    }
    const rows = await preparedArrays<ReadRow>(pgPool(this.dataSource), 'read_password_as_caller', READ_AS_CALLER, [
      hashToken(token),
      RETRIEVE_ROLES,
      resourceId,
      accountId,
      clientIp(req),
      String(req.headers['user-agent'] ?? '').slice(0, 200),
      reason.slice(0, 1000),
      ticketId.slice(0, 200),
    ]);
    if (rows.length === 0) return this.authenticator.refuseUnknown(req);
    const [id, org_id, org_name, username, role, is_super_admin, locked, allowed_hosts, expired, fast, granted, password, logged, memberName] = rows[0];
    const caller: CallerRow = { id, org_id, org_name, username, role, is_super_admin, locked, allowed_hosts, expired };
    if (!fast) {
      req.actor = await this.authenticator.admit(caller, req, Permission.PasswordRetrieve);
      return this.read(req.actor, resourceId, accountId, reason, ticketId);
    }
    req.actor = actorOf(caller, req);
    if (!granted) return this.read(req.actor, resourceId, accountId, reason, ticketId);
    if (logged !== 1) throw new Error('Password read was not audited');
    return passwordReply(await this.gate.open(password!), memberName);
  }

  /** GET PASSWORD for an authenticated actor: the password, or a Failed answer saying why not. */
  async read(actor: Actor, resourceId: number, accountId: number, reason = '', ticketId = ''): Promise<Reply> {
    const { password, memberName } = await this.gate.openPassword(actor, { use: 'read', resourceId, accountId, reason, ticketId });
    return passwordReply(password, memberName);
  }

  /** The password or the refusal, audited either way; unknown or invisible accounts throw. */
  async release(actor: Actor, resourceId: number, accountId: number, reason = '', ticketId = ''): Promise<PasswordRelease> {
    try {
      const { password, memberName } = await this.gate.openPassword(actor, { use: 'read', resourceId, accountId, reason, ticketId });
      return { password, ...(memberName ? { memberName } : {}) };
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== ErrorCode.Forbidden) throw error;
      return { refusal: error.code, message: error.message, details: error.details as Record<string, string> | undefined };
    }
  }
}

/** A two-account pair's read names the member whose password it is (ACCOUNTNAME): log in as that one. */
function passwordReply(password: string, memberName?: string | null): Reply {
  return reply('Password fetched successfully', memberName ? { PASSWORD: password, ACCOUNTNAME: memberName } : { PASSWORD: password });
}
