import { Controller, Get, Param, Post, Req } from '@nestjs/common';
import { AppError, HtmlReply, ParsedRequest, parseInput, Public } from '@app/http';
import { parseId } from '../common/ids';
import { AccessControlDto } from '../password-requests/access-control.dto';
import { AccessControlService } from '../password-requests/access-control.service';
import { CreateResourceDto } from '../resources/resource.dto';
import { ResourceWriter } from '../resources/resource-writer';
import { ShareDto } from '../sharing/share.dto';
import { SharingService } from '../sharing/sharing.service';
import { UsersService } from '../users/users.service';
import { ConsoleReads } from './console-reads';
import { ConsoleRequests, fieldsOf, flash, text } from './console-requests';
import { newResourcePage, usersPage } from './console-views';

/**
 * The administrators' console pages: each form is the API operation of the same name, its
 * input checked by that operation's DTO, its rules and audit the operation's own.
 */
@Controller()
export class ConsoleAdminController {
  constructor(
    private readonly requests: ConsoleRequests,
    private readonly reads: ConsoleReads,
    private readonly sharing: SharingService,
    private readonly accessControl: AccessControlService,
    private readonly writer: ResourceWriter,
    private readonly users: UsersService,
  ) {}

  @Get('console/resources/new')
  @Public()
  newResourceForm(@Req() req: ParsedRequest) {
    return this.requests.page(req, 'accounts', async (s) => newResourcePage(s.ctx), 'resource.create');
  }

  @Post('console/resources/new')
  @Public()
  createResource(@Req() req: ParsedRequest) {
    return this.requests.action(req, 'accounts', async (s) => {
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
    return this.requests.action(req, 'accounts', async (s) => {
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
    return this.requests.action(req, 'accounts', async (s) => {
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
    return this.requests.page(req, 'users', async (s) => usersPage(s.ctx, await this.reads.users(s.actor), flash(req)), 'user.manage');
  }

  @Post('console/users/:name/:change')
  @Public()
  lockUser(@Req() req: ParsedRequest, @Param('name') name: string, @Param('change') change: string) {
    return this.requests.action(req, 'users', async (s) => {
      if (change !== 'lock' && change !== 'unlock') throw AppError.notFound('No such change: lock or unlock');
      const answer = await this.users.setLocked(s.actor, undefined, name, change === 'lock');
      return HtmlReply.redirect(`/console/users?done=${encodeURIComponent(answer.message)}`);
    });
  }
}
