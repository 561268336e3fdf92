import { Controller, Get, Param, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { parseId } from '../common/ids';
import { CheckoutService } from './checkout.service';
import { DecisionDto, RequestAccessDto, RequestPasswordDto } from './password-request.dto';
import { PasswordRequestsService } from './password-requests.service';

/** Spec ops 10-15: the password access workflow. */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/accounts')
export class PasswordRequestsController {
  constructor(
    private readonly requests: PasswordRequestsService,
    private readonly checkouts: CheckoutService,
  ) {}

  @Post(':aid/requestpassword')
  @Operation('REQUEST_PASSWORD', Permission.PasswordRetrieve)
  request(@CurrentActor() actor: Actor, @Param('aid') aid: string, @Input(RequestAccessDto) dto: RequestAccessDto) {
    return this.requests.request(actor, parseId(aid, 'account id'), dto);
  }

  @Get('passwordaccessrequests')
  @Operation('GET_PASSWORDREQUEST', Permission.RequestApprove)
  pending(@CurrentActor() actor: Actor) {
    return this.requests.pending(actor);
  }

  @Post(':aid/requester/:uid/reject')
  @Operation('ADMIN_REQUEST_REJECT', Permission.RequestApprove)
  reject(@CurrentActor() actor: Actor, @Param('aid') aid: string, @Param('uid') uid: string, @Input(DecisionDto) dto: DecisionDto) {
    return this.requests.reject(actor, parseId(aid, 'account id'), parseId(uid, 'requester id'), dto.REASON);
  }

  @Post(':aid/requester/:uid/approve')
  @Operation('ADMIN_REQUEST_APPROVE', Permission.RequestApprove)
  approve(@CurrentActor() actor: Actor, @Param('aid') aid: string, @Param('uid') uid: string) {
    return this.requests.approve(actor, parseId(aid, 'account id'), parseId(uid, 'requester id'));
  }

  @Post(':aid/requester/:uid/checkin')
  @Operation('ADMIN_REQUEST_CHECKIN', Permission.PasswordRetrieve)
  checkin(@CurrentActor() actor: Actor, @Param('aid') aid: string, @Param('uid') uid: string, @Input(DecisionDto) dto: DecisionDto) {
    return this.checkouts.checkin(actor, parseId(aid, 'account id'), parseId(uid, 'requester id'), dto.REASON);
  }

  @Post(':aid/checkout')
  @Operation('REQUEST_CHECKOUT', Permission.PasswordRetrieve)
  checkout(@CurrentActor() actor: Actor, @Param('aid') aid: string, @Input(RequestPasswordDto) dto: RequestPasswordDto) {
    return this.checkouts.checkout(actor, parseId(aid, 'account id'), dto.REASON);
  }
}
