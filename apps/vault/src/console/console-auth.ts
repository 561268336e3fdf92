import { Inject, Injectable, Logger } from '@nestjs/common';
import { compare, hash } from 'bcrypt';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { APP_CONFIG, AppConfig } from '@app/config';
import { actorInOrg, Authenticator, CallerRow, isAdministrativeRole, Permission } from '@app/auth';
import { Keyring } from '@app/crypto';
import { INITIAL_PASSWORD_FILE, retireInitialTokenFile, rotateApiToken } from '@app/server';
import { AppError, ErrorCode, ParsedRequest } from '@app/http';
import { DirectorySignIn } from '../directory/directory-sign-in';
import { SettingsService } from '../settings/settings.service';
import { ConsoleSession, ConsoleSessions, SessionStage } from './console-sessions';
import { newTotpSecret, totpStep } from './totp';

const TOTP_CONTEXT = 'users.totp_secret';
const PENDING_CONTEXT = 'users.totp_pending';
const BCRYPT_COST = 12;
// A hash of nothing anyone knows: an unknown user name costs the same time as a wrong password.
const DECOY_HASH = '$2b$12$1ZQm4R9qM/rJMoDOAuJUDu3NC5kJ9YBw4LYVuoP8J1PTL8nKK.UhO';

/**
 * Signing in to the console: the user name and login password of a user (an API user has none,
 * but for the first start's `admin`, who is both), or the directory's password where one is
 * configured; then a TOTP code, required for administrators and super administrators and for
 * everyone when the organisation's setting says so. Every failure goes through the API's throttle
 * and failed-authentication ledger; successes and TOTP enrolments are audited.
 */
@Injectable()
export class ConsoleAuth {
  constructor(
    private readonly dataSource: DataSource,
    private readonly authenticator: Authenticator,
    private readonly sessions: ConsoleSessions,
    private readonly settings: SettingsService,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: DirectorySignIn,
  ) {}
  private readonly logger = new Logger('ConsoleAuth');

  /** First step: a new session at its next stage, or a refusal that says nothing about which part was wrong. */
  async signIn(req: ParsedRequest, username: string, password: string, organisation = ''): Promise<{ token: string; session: ConsoleSession }> {
    // A user name may exist in several organisations: the organisation field chooses, else the password does.
    const candidates: { id: number; password_hash: string | null; enrolled: boolean }[] = await this.dataSource.query(
      `SELECT u.id, u.password_hash, u.totp_secret IS NOT NULL AS enrolled FROM users u JOIN organizations o ON o.id = u.org_id
       WHERE u.username_key = lower($1) AND ($2 = '' OR lower(o.name) = lower($2)) ORDER BY u.id LIMIT 5`,
      [username.trim(), organisation.trim()],
    );
    const people = candidates.filter((c) => c.password_hash);
    const matches = [];
    for (const c of people) if (await compare(password, c.password_hash!)) matches.push(c);
    let user: { id: number; enrolled: boolean } | undefined = matches.length === 1 ? matches[0] : undefined;
    let how = 'password';
    if (people.length === 0) {
      // No local password holds this name: the directory's, when one is configured (issue 37).
      const id = await this.directory.authenticate(username, password, organisation);
      if (id === undefined) await compare(password, DECOY_HASH);
      else {
        const [row] = await this.dataSource.query('SELECT id, totp_secret IS NOT NULL AS enrolled FROM users WHERE id = $1', [id]);
        user = row;
        how = 'the directory password';
      }
    }
    const caller = user ? await this.authenticator.callerById(user.id) : undefined;
    // The ledger counts failures per user when the name is one person's (who is being guessed).
    const named = candidates.length === 1 ? await this.authenticator.callerById(candidates[0].id) : undefined;
    if (!user || !caller) return this.authenticator.refuseSignIn(req, named);
    const actor = await this.admitted(caller, req);
    const stage: SessionStage = user.enrolled ? 'totp' : (await this.totpRequired(actor)) ? 'enrol' : 'full';
    if (stage === 'full') await this.recordSignIn(actor, how);
    return this.sessions.create(caller.id, stage);
  }

  /** The actor of a full session, checked as every request's caller is (lock, expiry, host binding). */
  async actorOf(session: ConsoleSession, req: ParsedRequest): Promise<Actor> {
    const caller = await this.authenticator.callerById(session.userId);
    if (!caller) throw new AppError(ErrorCode.AuthFailed, 'Your session has ended: sign in again');
    // The organisation chosen in the console, by the API's orgName rules (provider users only).
    return actorInOrg(this.dataSource, await this.admitted(caller, req), session.orgName);
  }

  /** Second step: a code of the user's secret, each time step accepted once (a replayed code fails). */
  async verifyTotp(req: ParsedRequest, session: ConsoleSession, code: string): Promise<void> {
    const [row] = await this.dataSource.query('SELECT totp_secret, totp_last_step FROM users WHERE id = $1', [session.userId]);
    const caller = await this.authenticator.callerById(session.userId);
    const secret = row?.totp_secret ? await this.keyring.openText(row.totp_secret, TOTP_CONTEXT) : undefined;
    const step = secret ? totpStep(secret, code) : undefined;
    if (step === undefined || !(await this.takeStep(session.userId, step))) {
      // Guessing codes costs the session after a few tries: the password is asked for again.
      await this.sessions.failedCode(session);
      return this.authenticator.refuseSignIn(req, caller);
    }
    await this.sessions.advance(session, 'full');
    await this.recordSignIn(await this.admitted(caller!, req), 'password and TOTP');
  }

  /** Enrolment: the secret offered (made once per enrolment, kept sealed until confirmed). */
  async pendingSecret(session: ConsoleSession): Promise<string> {
    const [row] = await this.dataSource.query('SELECT totp_pending FROM users WHERE id = $1', [session.userId]);
    if (row?.totp_pending) return this.keyring.openText(row.totp_pending, PENDING_CONTEXT);
    const secret = newTotpSecret();
    await this.dataSource.query('UPDATE users SET totp_pending = $2 WHERE id = $1', [session.userId, this.keyring.seal(secret, PENDING_CONTEXT)]);
    return secret;
  }

  /** Enrolment confirmed by a code of the offered secret: it becomes the user's second factor. */
  async confirmEnrolment(req: ParsedRequest, session: ConsoleSession, code: string): Promise<void> {
    const secret = await this.pendingSecret(session);
    const caller = await this.authenticator.callerById(session.userId);
    const step = totpStep(secret, code);
    if (step === undefined) {
      await this.sessions.failedCode(session);
      return this.authenticator.refuseSignIn(req, caller);
    }
    await this.dataSource.query('UPDATE users SET totp_secret = $2, totp_pending = NULL, totp_last_step = $3 WHERE id = $1', [
      session.userId,
      this.keyring.seal(secret, TOTP_CONTEXT),
      step,
    ]);
    await this.sessions.advance(session, 'full');
    const actor = await this.admitted(caller!, req);
    await this.audit.record({ category: 'User', operation: AuditOperation.TotpEnrolled, actor, target: actor.username, description: 'console' });
    await this.recordSignIn(actor, 'password and a new TOTP');
  }

  /** A user changes their own login password, proving the current one. */
  async changePassword(req: ParsedRequest, actor: Actor, current: string, next: string): Promise<void> {
    const [row] = await this.dataSource.query('SELECT password_hash FROM users WHERE id = $1', [actor.id]);
    if (!row?.password_hash || !(await compare(current, row.password_hash))) {
      return this.authenticator.refuseSignIn(req, await this.authenticator.callerById(actor.id));
    }
    if (next.length < 12 || next.length > 256) throw AppError.invalid('The new password must be 12 to 256 characters');
    await this.dataSource.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [actor.id, await hash(next, BCRYPT_COST)]);
    await this.audit.record({ category: 'User', operation: AuditOperation.UserPasswordChanged, actor, target: actor.username, description: 'own login password (console)' });
    this.retireInitialPassword(current);
  }

  /** A new API token of the signed-in user, shown once; every earlier one stops working (audited). */
  async newOwnToken(actor: Actor): Promise<string> {
    // A provider user acting in another organisation is still a user of their own.
    const { token, revoked } = await rotateApiToken(this.dataSource, actor.homeOrgId ?? actor.orgId, actor.username, `console, by ${actor.username}`);
    // The first start's admin replacing its token: DATA_DIR/initial-admin-token has done its job.
    const why = await retireInitialTokenFile(this.dataSource, this.config.dataDir, { revoked });
    if (why) this.logger.log(`Removed ${join(this.config.dataDir, 'initial-admin-token')}: ${why}`);
    return token;
  }

  /** DATA_DIR/initial-admin-password has done its job once the password it holds is changed. */
  private retireInitialPassword(oldPassword: string): void {
    const file = join(this.config.dataDir, INITIAL_PASSWORD_FILE);
    try {
      if (existsSync(file) && readFileSync(file, 'utf8').trim() === oldPassword) {
        rmSync(file);
        this.logger.log(`Removed ${file}: the password it held was changed`);
      }
    } catch (error) {
      this.logger.warn(`Could not remove ${file}: ${error instanceof Error ? error.message : error}`);
    }
  }

  private async totpRequired(actor: Actor): Promise<boolean> {
    return actor.isSuperAdmin || isAdministrativeRole(actor.role) || (await this.settings.get(actor.orgId)).totpForEveryone;
  }

  /** Compare-and-set of the last accepted step: of two requests with one code, one wins. */
  private async takeStep(userId: number, step: number): Promise<boolean> {
    const [rows] = (await this.dataSource.query(
      'UPDATE users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id',
      [userId, step],
    )) as [unknown[], number];
    return rows.length === 1;
  }

  private admitted(caller: CallerRow, req: ParsedRequest): Promise<Actor> {
    return this.authenticator.admit(caller, req, Permission.ResourceRead);
  }

  private recordSignIn(actor: Actor, how: string) {
    return this.audit.record({ category: 'User', operation: AuditOperation.ConsoleSignIn, actor, target: actor.username, description: `signed in with ${how}` });
  }
}
