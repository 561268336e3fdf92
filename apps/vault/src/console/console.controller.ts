import { Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { AppError, HtmlReply, ParsedRequest, parseInput, Public } from '@app/http';
import { SecretPath } from '@app/gate';
import { CertificatesService, CertificateExportService } from '@app/pki/cert-service';
import { parseId } from '../common/ids';
import { AuditReader } from '../audit/audit-reader.service';
import { AuditQueryDto } from '../audit/audit.dto';
import { CheckoutService } from '../password-requests/checkout.service';
import { PasswordRequestsService } from '../password-requests/password-requests.service';
import { fromDateTimeLocal } from '../password-requests/request-window';
import { PasswordReader } from '../passwords/password-reader';
import { PasswordVerifier } from '../remote-reset/password-verifier';
import { RemotePasswords } from '../remote-reset/remote-passwords';
import { ResourcesService } from '../resources/resources.service';
import { ConsoleAuth } from './console-auth';
import { ConsoleReads } from './console-reads';
import { ConsoleRequests, fieldsOf, flash, text } from './console-requests';
import { accountsPage, approvalsPage, auditPage, certificatesPage, checkoutsPage, passwordPage, resourcePage, revealPage, rotationPage, tokenPage } from './console-views';

const PAGE_SIZE = 50;

/**
 * The web console's pages for the people in the loop (docs/console.md): accounts, reveal,
 * requests, approvals, check-outs, rotation, audit, certificates, one's own password. Every
 * action calls the service the API operation of the same name calls: the same gate, the same audit.
 */
@Controller()
export class ConsoleController {
  constructor(
    private readonly requests: ConsoleRequests,
    private readonly auth: ConsoleAuth,
    private readonly reads: ConsoleReads,
    private readonly resources: ResourcesService,
    private readonly reader: PasswordReader,
    private readonly passwordRequests: PasswordRequestsService,
    private readonly checkouts: CheckoutService,
    private readonly auditReader: AuditReader,
    private readonly certificates: CertificatesService,
    private readonly exports: CertificateExportService,
    private readonly verifier: PasswordVerifier,
    private readonly remote: RemotePasswords,
  ) {}

  @Get('console/accounts')
  @Public()
  accounts(@Req() req: ParsedRequest, @Query('q') q = '', @Query('page') page = '1') {
    return this.requests.page(req, 'accounts', async (s) => {
      const current = pageNumber(page);
      const list = await this.resources.list(s.actor, { SEARCHVALUE: q.trim() || undefined, SEARCHCOLUMN: 'ALL', STARTINDEX: (current - 1) * PAGE_SIZE, LIMIT: PAGE_SIZE });
      return accountsPage(s.ctx, q, current, list.details as Record<string, string>[], list.totalRows ?? 0, PAGE_SIZE);
    });
  }

  // Administration: each form is the API operation of the same name, its input checked by that operation's DTO.

  @Get('console/resources/:rid')
  @Public()
  resource(@Req() req: ParsedRequest, @Param('rid') rid: string) {
    return this.requests.page(req, 'accounts', async (s) => {
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
    return this.requests.action(req, 'accounts', async (s) => {
      const release = await this.reader.release(s.actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), text(req, 'reason'), text(req, 'ticket'));
      const names = await this.reads.names(s.actor, parseId(aid, 'account id'));
      return new HtmlReply(revealPage(s.ctx, names, rid, release));
    });
  }

  @Post('console/resources/:rid/accounts/:aid/request')
  @Public()
  request(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.requests.action(req, 'accounts', async (s) => {
      const [from, until] = [text(req, 'from'), text(req, 'until')];
      const window = from || until ? { ACCESS: 'later', STARTTIME: fromDateTimeLocal(from), ENDTIME: fromDateTimeLocal(until) } : {};
      const answer = await this.passwordRequests.request(s.actor, parseId(aid, 'account id'), { REASON: text(req, 'reason'), TICKETID: text(req, 'ticket') || undefined, ...window });
      return HtmlReply.redirect(`/console/resources/${parseId(rid, 'resource id')}?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Post('console/resources/:rid/accounts/:aid/checkout')
  @Public()
  checkout(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.requests.action(req, 'accounts', async (s) => {
      const answer = await this.checkouts.checkout(s.actor, parseId(aid, 'account id'), text(req, 'reason'));
      return HtmlReply.redirect(`/console/resources/${parseId(rid, 'resource id')}?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Post('console/resources/:rid/accounts/:aid/checkin')
  @Public()
  checkin(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.requests.action(req, 'checkouts', async (s) => {
      const requester = text(req, 'requester') ? parseId(text(req, 'requester'), 'requester id') : s.actor.id;
      const answer = await this.checkouts.checkin(s.actor, parseId(aid, 'account id'), requester, text(req, 'reason'));
      return HtmlReply.redirect(`/console/checkouts?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Post('console/resources/:rid/accounts/:aid/verify')
  @Public()
  @SecretPath('use')
  verify(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.requests.action(req, 'accounts', async (s) => {
      const answer = await this.verifier.verifyForCaller(s.actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), text(req, 'reason'), text(req, 'ticket'));
      const status = (answer.details as Record<string, string> | undefined)?.STATUS;
      return HtmlReply.redirect(`/console/resources/${parseId(rid, 'resource id')}?done=${encodeURIComponent(`${answer.message}${status ? `: ${status}` : ''}`)}`);
    });
  }

  @Post('console/resources/:rid/accounts/:aid/reconcile')
  @Public()
  @SecretPath('change')
  reconcile(@Req() req: ParsedRequest, @Param('rid') rid: string, @Param('aid') aid: string) {
    return this.requests.action(req, 'accounts', async (s) => {
      await this.remote.reconcile(s.actor, parseId(rid, 'resource id'), parseId(aid, 'account id'), text(req, 'reason'), text(req, 'ticket'));
      return HtmlReply.redirect(`/console/resources/${parseId(rid, 'resource id')}?done=${encodeURIComponent('Password reconciled successfully')}`);
    });
  }

  @Get('console/rotation')
  @Public()
  rotation(@Req() req: ParsedRequest) {
    return this.requests.page(req, 'rotation', async (s) => rotationPage(s.ctx, await this.reads.rotations(s.actor)));
  }

  @Get('console/approvals')
  @Public()
  approvals(@Req() req: ParsedRequest) {
    return this.requests.page(req, 'approvals', async (s) => approvalsPage(s.ctx, (await this.passwordRequests.pending(s.actor)).details as Record<string, unknown>[], flash(req)));
  }

  @Post('console/approvals/:aid/:uid/:decision')
  @Public()
  decide(@Req() req: ParsedRequest, @Param('aid') aid: string, @Param('uid') uid: string, @Param('decision') decision: string) {
    return this.requests.action(req, 'approvals', async (s) => {
      const accountId = parseId(aid, 'account id');
      const requesterId = parseId(uid, 'requester id');
      if (decision !== 'approve' && decision !== 'reject') throw AppError.notFound('No such decision: approve or reject');
      const answer = decision === 'approve' ? await this.passwordRequests.approve(s.actor, accountId, requesterId) : await this.passwordRequests.reject(s.actor, accountId, requesterId, text(req, 'comment'));
      return HtmlReply.redirect(`/console/approvals?done=${encodeURIComponent(answer.message)}`);
    });
  }

  @Get('console/checkouts')
  @Public()
  myCheckouts(@Req() req: ParsedRequest) {
    return this.requests.page(req, 'checkouts', async (s) => checkoutsPage(s.ctx, await this.reads.myRequests(s.actor), flash(req)));
  }

  @Get('console/audit')
  @Public()
  auditTrail(@Req() req: ParsedRequest, @Query('before') before = '') {
    return this.requests.page(req, 'audit', async (s) => {
      const filters = auditFilters(req);
      const list = await this.auditReader.page(s.actor, { ...auditQuery(filters), LIMIT: 50, BEFOREID: before || undefined });
      const chain = await this.reads.chainStatus();
      return auditPage(s.ctx, filters, list.details as Record<string, string>[], list.totalRows ?? 0, chain);
    }, 'audit.read');
  }

  @Get('console/audit.csv')
  @Public()
  auditCsv(@Req() req: ParsedRequest) {
    return this.requests.page(req, 'audit', async (s) => {
      const list = await this.auditReader.page(s.actor, { ...auditQuery(auditFilters(req)), LIMIT: 1000 });
      return new HtmlReply(toCsv(list.details as Record<string, string>[]), 200, { 'Content-Disposition': 'attachment; filename="audit.csv"' }, 'text/csv; charset=utf-8');
    }, 'audit.read');
  }

  @Get('console/certificates')
  @Public()
  certificateList(@Req() req: ParsedRequest, @Query('days') days = '30') {
    return this.requests.page(req, 'certificates', async (s) => {
      const within = Math.min(Math.max(Number.parseInt(days, 10) || 30, 0), 3650);
      const list = await this.certificates.list(s.actor, { withExpiryDaysLessThan: within });
      return certificatesPage(s.ctx, within, list);
    }, 'pki.read');
  }

  @Get('console/certificates/download')
  @Public()
  certificateDownload(@Req() req: ParsedRequest, @Query('cn') cn = '', @Query('serial') serial = '') {
    return this.requests.page(req, 'certificates', async (s) => {
      const file = await this.exports.download(s.actor, { common_name: cn, serial_number: serial || undefined, fileType: 'PEM' });
      return new HtmlReply(file.body.toString('utf8'), 200, { 'Content-Disposition': file.disposition, 'X-Content-Type-Options': 'nosniff' }, 'application/x-pem-file');
    }, 'pki.read');
  }

  @Get('console/password')
  @Public()
  passwordForm(@Req() req: ParsedRequest) {
    return this.requests.page(req, 'password', async (s) => passwordPage(s.ctx, flash(req)));
  }

  @Post('console/password')
  @Public()
  changePassword(@Req() req: ParsedRequest) {
    return this.requests.action(req, 'password', async (s) => {
      if (text(req, 'next') !== text(req, 'again')) throw AppError.invalid('The two new passwords differ');
      await this.auth.changePassword(req, s.actor, text(req, 'current'), text(req, 'next'));
      return HtmlReply.redirect(`/console/password?done=${encodeURIComponent('Your password has been changed')}`);
    });
  }

  /** A person's own API token (a directory user has no other way to one): every earlier one revoked. */
  @Post('console/token')
  @Public()
  createToken(@Req() req: ParsedRequest) {
    return this.requests.action(req, 'password', async (s) => {
      return new HtmlReply(tokenPage(s.ctx, await this.auth.newOwnToken(s.actor)));
    });
  }
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

function pageNumber(text: string): number {
  const n = Number.parseInt(text, 10);
  return Number.isInteger(n) && n > 0 && n < 1_000_000 ? n : 1;
}
