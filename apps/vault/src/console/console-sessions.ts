import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/config';
import { hashToken } from '@app/crypto';

export const SESSION_COOKIE = '__Host-credvault';
/** Wrong second-factor codes one session may send; then the password is asked for again. */
export const MAX_CODE_FAILURES = 5;

export type SessionStage = 'totp' | 'enrol' | 'full';

export interface ConsoleSession {
  id: number;
  userId: number;
  csrf: string;
  stage: SessionStage;
  /** The organisation a provider user acts in (the API's orgName header); undefined: their own. */
  orgName?: string;
}

/**
 * Console sessions live in PostgreSQL: any instance serves any session and a failover keeps
 * them. The cookie holds a random token; the table holds its SHA-256 only. A session ends
 * after CONSOLE_IDLE_MINUTES without a request or CONSOLE_SESSION_HOURS after sign-in,
 * whichever comes first, and at sign-out (the row is deleted: the cookie is worth nothing).
 */
@Injectable()
export class ConsoleSessions {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(userId: number, stage: SessionStage): Promise<{ token: string; session: ConsoleSession }> {
    // Sessions nobody came back to are removed as new ones begin (a timed-out one met later is removed then).
    const { idleMinutes, sessionHours } = this.config.console;
    await this.dataSource.query(
      'DELETE FROM console_sessions WHERE last_seen_at < now() - make_interval(mins => $1) OR created_at < now() - make_interval(hours => $2)',
      [idleMinutes, sessionHours],
    );
    const token = randomBytes(32).toString('base64url');
    const csrf = randomBytes(24).toString('base64url');
    const [row] = await this.dataSource.query(
      'INSERT INTO console_sessions (token_hash, user_id, csrf, stage) VALUES ($1, $2, $3, $4) RETURNING id',
      [hashToken(token), userId, csrf, stage],
    );
    return { token, session: { id: row.id, userId, csrf, stage } };
  }

  /** The live session of a cookie token, its idle clock restarted; undefined when unknown or timed out (then removed). */
  async find(token: string | undefined): Promise<ConsoleSession | undefined> {
    if (!token || token.length > 100) return undefined;
    const { idleMinutes, sessionHours } = this.config.console;
    const [row] = await this.dataSource.query(
      `WITH found AS (SELECT id, user_id, csrf, stage, org_name,
           last_seen_at > now() - make_interval(mins => $2) AND created_at > now() - make_interval(hours => $3) AS live
         FROM console_sessions WHERE token_hash = $1),
       touched AS (UPDATE console_sessions s SET last_seen_at = now() FROM found f WHERE s.id = f.id AND f.live RETURNING s.id),
       expired AS (DELETE FROM console_sessions s USING found f WHERE s.id = f.id AND NOT f.live RETURNING s.id)
       SELECT f.*, (SELECT count(*) FROM touched)::int AS touched FROM found f`,
      [hashToken(token), idleMinutes, sessionHours],
    );
    if (!row || !row.live) return undefined;
    return { id: row.id, userId: row.user_id, csrf: row.csrf, stage: row.stage, orgName: row.org_name ?? undefined };
  }

  async advance(session: ConsoleSession, stage: SessionStage): Promise<void> {
    await this.dataSource.query('UPDATE console_sessions SET stage = $2 WHERE id = $1', [session.id, stage]);
  }

  async switchOrg(session: ConsoleSession, orgName: string | null): Promise<void> {
    await this.dataSource.query('UPDATE console_sessions SET org_name = $2 WHERE id = $1', [session.id, orgName]);
  }

  /** Counts a wrong second-factor code; true when the session has had its last try (it is then ended). */
  async failedCode(session: ConsoleSession): Promise<boolean> {
    const [rows] = (await this.dataSource.query('UPDATE console_sessions SET failures = failures + 1 WHERE id = $1 RETURNING failures', [session.id])) as [
      { failures: number }[],
      number,
    ];
    if ((rows[0]?.failures ?? MAX_CODE_FAILURES) < MAX_CODE_FAILURES) return false;
    await this.end(session);
    return true;
  }

  async end(session: ConsoleSession): Promise<void> {
    await this.dataSource.query('DELETE FROM console_sessions WHERE id = $1', [session.id]);
  }

  /** Set-Cookie for a session token: host-only, HTTPS only, not readable by scripts, never sent cross-site. */
  cookie(token: string): string {
    return `${SESSION_COOKIE}=${token}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=${this.config.console.sessionHours * 3600}`;
  }

  clearedCookie(): string {
    return `${SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0`;
  }
}

/** The session token of a request's Cookie header. */
export function sessionToken(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}
