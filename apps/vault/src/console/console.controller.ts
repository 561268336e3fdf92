import { Controller, Get, Logger, Param, Post, Query, Req } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { toString as qrSvg } from 'qrcode';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError, ErrorCode, HtmlReply, ParsedRequest, parseInput, Public, readField } from '@app/http';
import { SecretPath } from '@app/gate';
import { CertificatesService, CertificateExportService } from '@app/pki/cert-service';
import { parseId } from '../common/ids';
import { AuditReader } from '../audit/audit-reader.service';
import { AuditQueryDto } from '../audit/audit.dto';
import { CheckoutService } from '../password-requests/checkout.service';
import { PasswordRequestsService } from '../password-requests/password-requests.service';
import { PasswordReader } from '../passwords/password-reader';
import { ResourcesService } from '../resources/resources.service';
import { PasswordVerifier } from '../remote-reset/password-verifier';
import { AccessControlDto } from '../password-requests/access-control.dto';
import { AccessControlService } from '../password-requests/access-control.service';
import { CreateResourceDto } from '../resources/resource.dto';
import { ResourceWriter } from '../resources/resource-writer';
import { ShareDto } from '../sharing/share.dto';
import { SharingService } from '../sharing/sharing.service';
import { UsersService } from '../users/users.service';
import { RemotePasswords } from '../remote-reset/remote-passwords';
import { CONSOLE_CSS, CONSOLE_JS } from './console-assets';
import { ConsoleAuth } from './console-auth';
import { enrolPage, errorPage, layout, PageContext, signInPage, totpPage } from './console-pages';
import { ConsoleSession, ConsoleSessions, sessionToken } from './console-sessions';
import {
  accountsPage, approvalsPage, auditPage, certificatesPage, checkoutsPage, newResourcePage, passwordPage, resourcePage, revealPage, rotationPage, usersPage,
} from './console-views';
import { ConsoleReads } from './console-reads';
import { totpUri } from './totp';

// No script but our own file, no framing, no plugins, forms post only here.
const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  // same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on its form posts.
  'Referrer-Policy': 'same-origin',
  // Every console page may show a secret or what a user may see: none is kept by a browser or proxy.
  'Cache-Control': 'no-store',
};

type Signed = { session: ConsoleSession; actor: Actor; ctx: PageContext };

/**
 * The web console (docs/console.md), served by the vault on its own origin. Pages are HTML
 * rendered here; every action calls the service the API's operation calls (the same gate,
 * the same audit). Sessions are cookies backed by PostgreSQL (ConsoleSessions); every form
 * post carries the session's CSRF token and an Origin of this server.
 */
@Controller()
export class ConsoleController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly auth: ConsoleAuth,
    private readonly reads: ConsoleReads,
    private readonly resources: ResourcesService,
    private readonly reader: PasswordReader,
    private readonly requests: PasswordRequestsService,
    private readonly checkouts: CheckoutService,
    private readonly auditReader: AuditReader,
    private readonly certificates: CertificatesService,
    private readonly exports: CertificateExportService,
    private readonly audit: AuditWriter,
    private readonly dataSource: DataSource,
    private readonly verifier: PasswordVerifier,
    private readonly remote: RemotePasswords,
    private readonly sharing: SharingService,
    private readonly accessControl: AccessControlService,
    private readonly writer: ResourceWriter,
    private readonly users: UsersService,
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
    if (!this.formAllowed(req, session)) return secured(new HtmlReply(totpPage({ csrf: session.csrf }, 'This form must be sent from this server’s own page.'), 403));
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
    if (!this.formAllowed(req, session)) return secured(new HtmlReply(await this.enrolment(session, 'This form must be sent from this server’s own page.'), 403));
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
    if (session && this.formAllowed(req, session)) {
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
    return this.action(req, 'accounts', async (s) => {
      const name = text(req, 'organisation').trim();
      const home = s.ctx.organisations?.[0];
      if (!name || !s.ctx.organisations?.some((o) => o.toLowerCase() === name.toLowerCase())) throw AppError.notFound(`No organisation named ${name.slice(0, 100)}`);
      await this.sessions.switchOrg(s.session, name.toLowerCase() === home?.toLowerCase() ? null : name);
      return HtmlReply.redirect('/console/accounts');
    });
  }

  @Get('console/accounts')
  @Public()
  accounts(@Req() req: ParsedRequest, @Query('q') q = '', @Query('page') page = '1') {
    return this.page(req, 'accounts', async (s) => {
      const current = pageNumber(page);
      const list = await this.resources.list(s.actor, { SEARCHVALUE: q.trim() || undefined, SEARCHCOLUMN: 'ALL', STARTINDEX: (current - 1) * PAGE_SIZE, LIMIT: PAGE_SIZE });
      return accountsPage(s.ctx, q, current, list.details as Record<string, string>[], list.totalRows ?? 0, PAGE_SIZE);
    });
  }

  // Administration: each form is the API operation of the same name, its input checked by that operation's DTO.

  @Get('console/resources/new')
  @Public()
  newResourceForm(@Req() req: ParsedRequest) {
    return this.page(req, 'accounts', async (s) => newResourcePage(s.ctx), 'resource.create');
  }

  @Post('console/resources/new')
  @Public()
  createResource(@Req() req: ParsedRequest) {
    return this.action(req, 'accounts', async (s) => {
      this.reads.assertPermission(s.actor, 'resource.create');
      const dto = parseInput(
        CreateResourceDto,
        fieldsOf({ RESOURCENAME: text(req, 'name'), RESOURCETYPE: text(req, 'type'), DNSNAME: text(req, 'dns') || undefined, ACCOUNTNAME: text(req, 'account'), PASSWORD: text(req, 'password') }),
      );
      const answer = await this.writer.create(s.actor, dto, undefined);
      const id = (answer.details as Record<string, string>).RESOURCEID;
      return HtmlReply.redirect(`/console/resources/${id}?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Post('console/resources/:rid/share')
  @Public()
  share(@Req() req: ParsedRequest, @Param('rid') rid: string) {
    return this.action(req, 'accounts', async (s) => {
      const resourceId = parseId(rid, 'resource id');
      const grantee = await this.reads.granteeId(s.actor, text(req, 'kind') === 'group' ? 'group' : 'user', text(req, 'grantee'));
      const dto = parseInput(ShareDto, fieldsOf({ ACCESSTYPE: text(req, 'access'), ...(text(req, 'kind') === 'group' ? { USERGROUPID: grantee } : { USERID: grantee }) }));
      const answer = await this.sharing.shareResource(s.actor, resourceId, dto);
      return HtmlReply.redirect(`/console/resources/${resourceId}?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Post('console/resources/:rid/accesscontrol')
  @Public()
  putUnderAccessControl(@Req() req: ParsedRequest, @Param('rid') rid: string) {
    return this.action(req, 'accounts', async (s) => {
      const resourceId = parseId(rid, 'resource id');
      const users = text(req, 'approverUsers').trim();
      const dto = parseInput(
        AccessControlDto,
        fieldsOf({ APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: text(req, 'approvers') || '1', ADMINS_APPROVE: users ? 'false' : 'true', APPROVER_USERS: users || undefined, EXCLUSIVE: 'true', CHECKOUT_MINUTES: text(req, 'minutes') || '60' }),
      );
      const answer = await this.accessControl.configure(s.actor, resourceId, parseId(text(req, 'account'), 'account id'), dto);
      return HtmlReply.redirect(`/console/resources/${resourceId}?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Get('console/users')
  @Public()
  userList(@Req() req: ParsedRequest) {
    return this.page(req, 'users', async (s) => usersPage(s.ctx, await this.reads.users(s.actor), flash(req)), 'user.manage');
  }

  @Post('console/users/:name/:change')
  @Public()
  lockUser(@Req() req: ParsedRequest, @Param('name') name: string, @Param('change') change: string) {
    return this.action(req, 'users', async (s) => {
      if (change !== 'lock' && change !== 'unlock') throw AppError.notFound('No such change: lock or unlock');
      const answer = await this.users.setLocked(s.actor, undefined, name, change === 'lock');
      return HtmlReply.redirect(`/console/users?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Get('console/resources/:rid')
  @Public()
  resource(@Req() req: ParsedRequest, @Param('rid') rid: string) {
    return this.page(req, 'accounts', async (s) => {
      const resourceId = parseId(rid, 'resource id');
      const list = await this.resources.accountList(s.actor, resourceId);
      const states = await this.reads.accountStates(s.actor, resourceId);
      return resourcePage(s.ctx, list.details as Record<string, unknown>, states, flash(req));
    });
  }

  @Post('console/resources/:rid/accounts/:aid/reveal')
  @Public()
  @SecretPath('read')
  reveal(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.action(req, 'accounts', async (s) => {
      const release = await this.reader.release(s.actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), text(req, 'reason'), text(req, 'ticket'));
      const names = await this.reads.names(s.actor, parseId(aid, 'account id'));
      return new HtmlReply(revealPage(s.ctx, names, rid, release));
    });
  }

  @Post('console/resources/:rid/accounts/:aid/request')
  @Public()
  request(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.action(req, 'accounts', async (s) => {
      const answer = await this.requests.request(s.actor, parseId(aid, 'account id'), { REASON: text(req, 'reason'), TICKETID: text(req, 'ticket') || undefined });
      return HtmlReply.redirect(`/console/resources/${parseId(rid, 'resource id')}?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Post('console/resources/:rid/accounts/:aid/checkout')
  @Public()
  checkout(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.action(req, 'accounts', async (s) => {
      const answer = await this.checkouts.checkout(s.actor, parseId(aid, 'account id'), text(req, 'reason'));
      return HtmlReply.redirect(`/console/resources/${parseId(rid, 'resource id')}?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Post('console/resources/:rid/accounts/:aid/checkin')
  @Public()
  checkin(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.action(req, 'checkouts', async (s) => {
      const requester = text(req, 'requester') ? parseId(text(req, 'requester'), 'requester id') : s.actor.id;
      const answer = await this.checkouts.checkin(s.actor, parseId(aid, 'account id'), requester, text(req, 'reason'));
      return HtmlReply.redirect(`/console/checkouts?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Post('console/resources/:rid/accounts/:aid/verify')
  @Public()
  @SecretPath('use')
  verify(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.action(req, 'accounts', async (s) => {
      const answer = await this.verifier.verifyForCaller(s.actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), text(req, 'reason'), text(req, 'ticket'));
      const status = (answer.details as Record<string, string> | undefined)?.STATUS;
      return HtmlReply.redirect(`/console/resources/${parseId(rid, 'resource id')}?done=${encodeURIComponent(`${answer.message}${status ? `: ${status}` : ''}`)}`);
    });
  }

  @Post('console/resources/:rid/accounts/:aid/reconcile')
  @Public()
  @SecretPath('change')
  reconcile(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.action(req, 'accounts', async (s) => {
      await this.remote.reconcile(s.actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), text(req, 'reason'), text(req, 'ticket'));
      return HtmlReply.redirect(`/console/resources/${parseId(rid, 'resource id')}?done=${encodeURIComponent('Password reconciled successfully')}`);
    });
  }

  @Get('console/rotation')
  @Public()
  rotation(@Req() req: ParsedRequest) {
    return this.page(req, 'rotation', async (s) => rotationPage(s.ctx, await this.reads.rotations(s.actor)));
  }

  @Get('console/approvals')
  @Public()
  approvals(@Req() req: ParsedRequest) {
    return this.page(req, 'approvals', async (s) => approvalsPage(s.ctx, (await this.requests.pending(s.actor)).details as Record<string, unknown>[], flash(req)));
  }

  @Post('console/approvals/:aid/:uid/:decision')
  @Public()
  decide(@Req() req: ParsedRequest, @Param('aid') aid: string, @Param('uid') uid: string, @Param('decision') decision: string) {
    return this.action(req, 'approvals', async (s) => {
      const accountId = parseId(aid, 'account id');
      const requesterId = parseId(uid, 'requester id');
      if (decision !== 'approve' && decision !== 'reject') throw AppError.notFound('No such decision: approve or reject');
      const answer = decision === 'approve' ? await this.requests.approve(s.actor, accountId, requesterId) : await this.requests.reject(s.actor, accountId, requesterId, text(req, 'comment'));
      return HtmlReply.redirect(`/console/approvals?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Get('console/checkouts')
  @Public()
  myCheckouts(@Req() req: ParsedRequest) {
    return this.page(req, 'checkouts', async (s) => checkoutsPage(s.ctx, await this.reads.myRequests(s.actor), flash(req)));
  }

  @Get('console/audit')
  @Public()
  auditTrail(@Req() req: ParsedRequest, @Query('before') before = '') {
    return this.page(req, 'audit', async (s) => {
      const filters = auditFilters(req);
      const list = await this.auditReader.page(s.actor, { ...auditQuery(filters), LIMIT: 50, BEFOREID: before || undefined });
      const chain = await this.reads.chainStatus();
      return auditPage(s.ctx, filters, list.details as Record<string, string>[], list.totalRows ?? 0, chain);
    }, 'audit.read');
  }

  @Get('console/audit.csv')
  @Public()
  auditCsv(@Req() req: ParsedRequest) {
    return this.page(req, 'audit', async (s) => {
      const list = await this.auditReader.page(s.actor, { ...auditQuery(auditFilters(req)), LIMIT: 1000 });
      return new HtmlReply(toCsv(list.details as Record<string, string>[]), 200, { 'Content-Disposition': 'attachment; filename="audit.csv"' }, 'text/csv; charset=utf-8');
    }, 'audit.read');
  }

  @Get('console/certificates')
  @Public()
  certificateList(@Req() req: ParsedRequest, @Query('days') days = '30') {
    return this.page(req, 'certificates', async (s) => {
      const within = Math.min(Math.max(Number.parseInt(days, 10) || 30, 0), 3650);
      const list = await this.certificates.list(s.actor, { withExpiryDaysLessThan: within });
      return certificatesPage(s.ctx, within, list);
    }, 'pki.read');
  }

  @Get('console/certificates/download')
  @Public()
  certificateDownload(@Req() req: ParsedRequest, @Query('cn') cn = '', @Query('serial') serial = '') {
    return this.page(req, 'certificates', async (s) => {
      const file = await this.exports.download(s.actor, { common_name: cn, serial_number: serial || undefined, fileType: 'PEM' });
      return new HtmlReply(file.body.toString('utf8'), 200, { 'Content-Disposition': file.disposition, 'X-Content-Type-Options': 'nosniff' }, 'application/x-pem-file');
    }, 'pki.read');
  }

  @Get('console/password')
  @Public()
  passwordForm(@Req() req: ParsedRequest) {
    return this.page(req, 'password', async (s) => passwordPage(s.ctx, flash(req)));
  }

  @Post('console/password')
  @Public()
  changePassword(@Req() req: ParsedRequest) {
    return this.action(req, 'password', async (s) => {
      if (text(req, 'next') !== text(req, 'again')) throw AppError.invalid('The two new passwords differ');
      await this.auth.changePassword(req, s.actor, text(req, 'current'), text(req, 'next'));
      return HtmlReply.redirect(`/console/password?done=${encodeURIComponent('Your password has been changed')}`);
    });
  }

  /** A page for a signed-in user; the second factor first when it is due. */
  private async page(req: ParsedRequest, current: string, render: (s: Signed) => Promise<string | HtmlReply>, permission?: string): Promise<HtmlReply> {
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
  private async action(req: ParsedRequest, current: string, act: (s: Signed) => Promise<HtmlReply>): Promise<HtmlReply> {
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

  private formAllowed(req: ParsedRequest, session: ConsoleSession): boolean {
    const token = Buffer.from(text(req, 'csrf'));
    const expected = Buffer.from(session.csrf);
    return sameOrigin(req) && token.length === expected.length && timingSafeEqual(token, expected);
  }

  private tooManyCodes(): HtmlReply {
    return new HtmlReply(signInPage('Too many wrong codes: sign in again.'), 401, { 'Set-Cookie': this.sessions.clearedCookie() });
  }

  private async enrolment(session: ConsoleSession, error?: string): Promise<string> {
    const secret = await this.auth.pendingSecret(session);
    const [user] = await this.dataSource.query('SELECT username FROM users WHERE id = $1', [session.userId]);
    return enrolPage({ csrf: session.csrf }, secret, await qrSvg(totpUri(secret, user.username), { type: 'svg', margin: 1 }), error);
  }
}

const PAGE_SIZE = 50;

function secured(reply: HtmlReply): HtmlReply {
  return new HtmlReply(reply.html, reply.httpStatus, { ...SECURITY_HEADERS, ...reply.headers }, reply.contentType);
}

export interface AuditFilters {
  type: 'Resource' | 'User';
  user: string;
  operation: string;
  resource: string;
  from: string;
  to: string;
}

function auditFilters(req: ParsedRequest): AuditFilters {
  const q = req.query as Record<string, unknown>;
  const get = (name: string) => (typeof q[name] === 'string' ? (q[name] as string).trim().slice(0, 255) : '');
  return { type: get('type') === 'User' ? 'User' : 'Resource', user: get('user'), operation: get('operation'), resource: get('resource'), from: get('from'), to: get('to') };
}

/** The console's audit filters as GET_AUDIT's input, checked by its DTO like any API call. */
function auditQuery(f: AuditFilters) {
  return parseInput(
    AuditQueryDto,
    fieldsOf({ AUDITTYPE: f.type, USERNAME: f.user || undefined, OPERATIONTYPE: f.operation || undefined, RESOURCENAME: f.resource || undefined, FROMDATE: f.from || undefined, TODATE: f.to || undefined }),
  );
}

/** A console form's fields, named as the API operation's DTO names them. */
function fieldsOf(fields: Record<string, unknown>): (name: string) => unknown {
  return (name) => fields[name];
}

function text(req: ParsedRequest, name: string): string {
  const value = readField(req, name);
  return typeof value === 'string' ? value : '';
}

/**
 * A form post's Origin must name this server: the host and port the request was sent to. The
 * scheme is not compared, so a TLS proxy in front (TLS_MODE=off) works; a page of another site
 * cannot send this host's Origin, whatever its scheme.
 */
function sameOrigin(req: ParsedRequest): boolean {
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

function nextPage(session: ConsoleSession): string {
  return session.stage === 'totp' ? '/console/totp' : session.stage === 'enrol' ? '/console/totp/enrol' : '/console/accounts';
}

function pageNumber(text: string): number {
  const n = Number.parseInt(text, 10);
  return Number.isInteger(n) && n > 0 && n < 1_000_000 ? n : 1;
}

function flash(req: ParsedRequest): string | undefined {
  const done = (req.query as Record<string, unknown>).done;
  return typeof done === 'string' ? done.slice(0, 300) : undefined;
}

const logger = new Logger('Console');

function messageOf(error: unknown): string {
  if (error instanceof AppError) return error.message;
  logger.error(`Console page failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return 'Something went wrong on the server; it has been logged.';
}

function statusOf(error: unknown): number {
  if (!(error instanceof AppError)) return 500;
  if (error.code === ErrorCode.NotFound) return 404;
  if (error.code === ErrorCode.Forbidden) return 403;
  return 400;
}

function toCsv(rows: Record<string, string>[]): string {
  if (rows.length === 0) return '';
  const columns = Object.keys(rows[0]);
  // A cell starting with = + - @ would be a formula in a spreadsheet: quoted with a leading apostrophe.
  const cell = (v: unknown) => {
    const s = String(v ?? '');
    const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
    return `"${safe.replace(/"/g, '""')}"`;
  };
  return [columns.map(cell).join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))].join('\r\n') + '\r\n';
}

export { layout };
