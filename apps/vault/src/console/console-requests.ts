import { Injectable, Logger } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { Actor } from '@app/audit';
import { AppError, ErrorCode, HtmlReply, ParsedRequest, readField } from '@app/http';
import { ConsoleAuth } from './console-auth';
import { errorPage, PageContext, signInPage } from './console-pages';
import { ConsoleReads } from './console-reads';
import { ConsoleSession, ConsoleSessions, sessionToken } from './console-sessions';

// No script but our own file, no framing, no plugins, forms post only here.
const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  // same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on its form posts.
  'Referrer-Policy': 'same-origin',
  // Every console page may show a secret or what a user may see: none is kept by a browser or proxy.
  'Cache-Control': 'no-store',
};

export type Signed = { session: ConsoleSession; actor: Actor; ctx: PageContext };

/**
 * How every console page and form is served (docs/console.md): the session of the cookie at
 * its full stage (else on to sign-in or the second factor), the actor checked as the API
 * checks a caller, a form post only with this server's Origin and the session's CSRF token,
 * the security headers on every answer, and an error shown as a page.
 */
@Injectable()
export class ConsoleRequests {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly auth: ConsoleAuth,
    private readonly reads: ConsoleReads,
  ) {}

  /** A page for a signed-in user; the second factor first when it is due. */
  async page(req: ParsedRequest, current: string, render: (s: Signed) => Promise<string | HtmlReply>, permission?: string): Promise<HtmlReply> {
    const signed = await this.signed(req, current);
    if (signed instanceof HtmlReply) return secured(signed);
    try {
      if (permission) this.reads.assertPermission(signed.actor, permission);
      const out = await render(signed);
      return secured(out instanceof HtmlReply ? out : new HtmlReply(out));
    } catch (error) {
      return secured(new HtmlReply(errorPage(signed.ctx, statusOf(error), messageOf(error)), statusOf(error)));
    }
  }

  /** A form post of a signed-in user: this server's origin and the session's CSRF token, or nothing happens. */
  async action(req: ParsedRequest, current: string, act: (s: Signed) => Promise<HtmlReply>): Promise<HtmlReply> {
    const signed = await this.signed(req, current);
    if (signed instanceof HtmlReply) return secured(signed);
    if (!this.formAllowed(req, signed.session)) {
      return secured(new HtmlReply(errorPage(signed.ctx, 403, 'This form must be sent from this server’s own page: nothing was done.'), 403));
    }
    try {
      return secured(await act(signed));
    } catch (error) {
      return secured(new HtmlReply(errorPage(signed.ctx, statusOf(error), messageOf(error)), statusOf(error)));
    }
  }

  private async signed(req: ParsedRequest, current: string): Promise<Signed | HtmlReply> {
    const session = await this.sessions.find(sessionToken(req.headers.cookie));
    if (!session) return HtmlReply.redirect('/console/sign-in', { 'Set-Cookie': this.sessions.clearedCookie() });
    if (session.stage !== 'full') return HtmlReply.redirect(nextPage(session));
    try {
      const actor = await this.auth.actorOf(session, req);
      return { session, actor, ctx: { actor, csrf: session.csrf, current, organisations: await this.reads.organisations(actor) } };
    } catch (error) {
      await this.sessions.end(session);
      return new HtmlReply(signInPage(messageOf(error)), 401, { 'Set-Cookie': this.sessions.clearedCookie() });
    }
  }

  formAllowed(req: ParsedRequest, session: ConsoleSession): boolean {
    const token = Buffer.from(text(req, 'csrf'));
    const expected = Buffer.from(session.csrf);
    return sameOrigin(req) && token.length === expected.length && timingSafeEqual(token, expected);
  }
}

export function secured(reply: HtmlReply): HtmlReply {
  return new HtmlReply(reply.html, reply.httpStatus, { ...SECURITY_HEADERS, ...reply.headers }, reply.contentType);
}

/** A console form's fields, named as the API operation's DTO names them. */
export function fieldsOf(fields: Record<string, unknown>): (name: string) => unknown {
  return (name) => fields[name];
}

export function text(req: ParsedRequest, name: string): string {
  const value = readField(req, name);
  return typeof value === 'string' ? value : '';
}

/**
 * A form post's Origin must name this server: the host and port the request was sent to. The
 * scheme is not compared, so a TLS proxy in front (TLS_MODE=off) works; a page of another site
 * cannot send this host's Origin, whatever its scheme.
 */
export function sameOrigin(req: ParsedRequest): boolean {
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (!origin || !host || origin === 'null') return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.host === host.toLowerCase();
  } catch {
    return false;
  }
}

export function nextPage(session: ConsoleSession): string {
  return session.stage === 'totp' ? '/console/totp' : session.stage === 'enrol' ? '/console/totp/enrol' : '/console/accounts';
}

export function flash(req: ParsedRequest): string | undefined {
  const done = (req.query as Record<string, unknown>).done;
  return typeof done === 'string' ? done.slice(0, 300) : undefined;
}

const logger = new Logger('Console');

export function messageOf(error: unknown): string {
  if (error instanceof AppError) return error.message;
  logger.error(`Console page failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return 'Something went wrong on the server; it has been logged.';
}

export function statusOf(error: unknown): number {
  if (!(error instanceof AppError)) return 500;
  if (error.code === ErrorCode.NotFound) return 404;
  if (error.code === ErrorCode.Forbidden) return 403;
  return 400;
}
