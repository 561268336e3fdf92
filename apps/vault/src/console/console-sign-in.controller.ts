import { Controller, Get, Post, Req } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditOperation, AuditWriter } from '@app/audit';
import { AppError, HtmlReply, ParsedRequest, Public } from '@app/http';
import { CONSOLE_CSS, CONSOLE_JS } from './console-assets';
import { ConsoleAuth } from './console-auth';
import { enrolPage, signInPage, totpPage } from './console-pages';
import { ConsoleRequests, messageOf, nextPage, sameOrigin, secured, text } from './console-requests';
import { ConsoleSession, ConsoleSessions, sessionToken } from './console-sessions';
import { totpUri } from './totp';

/** Signing in and out of the web console, its second factor, its assets, and the organisation switch (docs/console.md). */
@Controller()
export class ConsoleSignInController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly auth: ConsoleAuth,
    private readonly requests: ConsoleRequests,
    private readonly audit: AuditWriter,
    private readonly dataSource: DataSource,
  ) {}

  @Get()
  @Public()
  root() {
    return secured(HtmlReply.redirect('/console/accounts'));
  }

  @Get('console')
  @Public()
  home() {
    return secured(HtmlReply.redirect('/console/accounts'));
  }

  @Get('console/app.css')
  @Public()
  css() {
    return new HtmlReply(CONSOLE_CSS, 200, { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }, 'text/css; charset=utf-8');
  }

  @Get('console/app.js')
  @Public()
  js() {
    return new HtmlReply(CONSOLE_JS, 200, { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }, 'text/javascript; charset=utf-8');
  }

  @Get('console/sign-in')
  @Public()
  signInForm() {
    return secured(new HtmlReply(signInPage()));
  }

  @Post('console/sign-in')
  @Public()
  async signIn(@Req() req: ParsedRequest) {
    if (!sameOrigin(req)) return secured(new HtmlReply(signInPage('This form must be sent from this server’s own page.'), 403));
    try {
      const { token, session } = await this.auth.signIn(req, text(req, 'username'), text(req, 'password'), text(req, 'organisation'));
      return secured(HtmlReply.redirect(nextPage(session), { 'Set-Cookie': this.sessions.cookie(token) }));
    } catch (error) {
      return secured(new HtmlReply(signInPage(messageOf(error)), 401));
    }
  }

  @Get('console/totp')
  @Public()
  async totpForm(@Req() req: ParsedRequest) {
    const session = await this.sessions.find(sessionToken(req.headers.cookie));
    if (!session || session.stage !== 'totp') return secured(HtmlReply.redirect(session ? nextPage(session) : '/console/sign-in'));
    return secured(new HtmlReply(totpPage({ csrf: session.csrf })));
  }

  @Post('console/totp')
  @Public()
  async totp(@Req() req: ParsedRequest) {
    const session = await this.sessions.find(sessionToken(req.headers.cookie));
    if (!session || session.stage !== 'totp') return secured(HtmlReply.redirect('/console/sign-in'));
    if (!this.requests.formAllowed(req, session)) return secured(new HtmlReply(totpPage({ csrf: session.csrf }, 'This form must be sent from this server’s own page.'), 403));
    try {
      await this.auth.verifyTotp(req, session, text(req, 'code'));
      return secured(HtmlReply.redirect('/console/accounts'));
    } catch (error) {
      if (!(await this.sessions.find(sessionToken(req.headers.cookie)))) return secured(this.tooManyCodes());
      return secured(new HtmlReply(totpPage({ csrf: session.csrf }, messageOf(error)), 401));
    }
  }

  @Get('console/totp/enrol')
  @Public()
  async enrolForm(@Req() req: ParsedRequest) {
    const session = await this.sessions.find(sessionToken(req.headers.cookie));
    if (!session || session.stage !== 'enrol') return secured(HtmlReply.redirect(session ? nextPage(session) : '/console/sign-in'));
    return secured(new HtmlReply(await this.enrolment(session)));
  }

  @Post('console/totp/enrol')
  @Public()
  async enrol(@Req() req: ParsedRequest) {
    const session = await this.sessions.find(sessionToken(req.headers.cookie));
    if (!session || session.stage !== 'enrol') return secured(HtmlReply.redirect('/console/sign-in'));
    if (!this.requests.formAllowed(req, session)) return secured(new HtmlReply(await this.enrolment(session, 'This form must be sent from this server’s own page.'), 403));
    try {
      await this.auth.confirmEnrolment(req, session, text(req, 'code'));
      return secured(HtmlReply.redirect('/console/accounts'));
    } catch (error) {
      if (!(await this.sessions.find(sessionToken(req.headers.cookie)))) return secured(this.tooManyCodes());
      return secured(new HtmlReply(await this.enrolment(session, messageOf(error)), 401));
    }
  }

  @Post('console/sign-out')
  @Public()
  async signOut(@Req() req: ParsedRequest) {
    const session = await this.sessions.find(sessionToken(req.headers.cookie));
    if (session && this.requests.formAllowed(req, session)) {
      await this.sessions.end(session);
      const caller = await this.dataSource.query('SELECT org_id, username FROM users WHERE id = $1', [session.userId]);
      await this.audit.record({ category: 'User', operation: AuditOperation.ConsoleSignOut, orgId: caller[0]?.org_id, target: caller[0]?.username ?? '', description: 'console' });
    }
    return secured(HtmlReply.redirect('/console/sign-in', { 'Set-Cookie': this.sessions.clearedCookie() }));
  }

  /** A provider user acts in another organisation, by the API's orgName rules (refused like an unknown name otherwise). */
  @Post('console/organisation')
  @Public()
  switchOrganisation(@Req() req: ParsedRequest) {
    return this.requests.action(req, 'accounts', async (s) => {
      const name = text(req, 'organisation').trim();
      const home = s.ctx.organisations?.[0];
      if (!name || !s.ctx.organisations?.some((o) => o.toLowerCase() === name.toLowerCase())) throw AppError.notFound(`No organisation named ${name.slice(0, 100)}`);
      await this.sessions.switchOrg(s.session, name.toLowerCase() === home?.toLowerCase() ? null : name);
      return HtmlReply.redirect('/console/accounts');
    });
  }

  private tooManyCodes(): HtmlReply {
    return new HtmlReply(signInPage('Too many wrong codes: sign in again.'), 401, { 'Set-Cookie': this.sessions.clearedCookie() });
  }

  private async enrolment(session: ConsoleSession, error?: string): Promise<string> {
    const secret = await this.auth.pendingSecret(session);
    const [user] = await this.dataSource.query('SELECT username FROM users WHERE id = $1', [session.userId]);
    // Loaded on first use: only a console user's enrolment draws a QR code.
    const { toString: qrSvg } = await import('qrcode');
    return enrolPage({ csrf: session.csrf }, secret, await qrSvg(totpUri(secret, user.username), { type: 'svg', margin: 1 }), error);
  }
}
