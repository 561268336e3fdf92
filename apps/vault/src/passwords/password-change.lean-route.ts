import { Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Actor } from '@app/audit';
import { AuthedRequest, Authenticator, LeanWriteRoute } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/config';
import { LeanRoutes, maxTextBody, parseInput, readField, reply, Reply } from '@app/http';
import { parseId } from '../common/ids';
import { RemotePasswords } from '../remote-reset/remote-passwords';
import { ChangePasswordDto } from './password.dto';
import { PasswordChanger } from './password-changer';
import { PasswordsController } from './passwords.controller';

/**
 * PUT .../password with a form or JSON body (the benchmarked write), without Express and
 * Nest's per-request machinery: the same input DTO, id parsing and change (local, or the
 * remote reset) as PasswordsController.change. Every other form of the call (multipart,
 * odd paths) is left to the controller.
 */
@Injectable()
export class PasswordChangeLeanRoute extends LeanWriteRoute {
  constructor(
    private readonly changer: PasswordChanger,
    private readonly remote: RemotePasswords,
    authenticator: Authenticator,
    reflector: Reflector,
    routes: LeanRoutes,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(authenticator, reflector, routes, {
      method: 'PUT',
      path: /^\/restapi\/json\/v1\/resources\/([^/]+)\/accounts\/([^/]+)\/password$/,
      controller: PasswordsController,
      handler: PasswordsController.prototype.change,
      maxBody: maxTextBody(config.maxFileSize),
    });
  }

  protected async serve(actor: Actor, req: AuthedRequest, match: RegExpExecArray): Promise<Reply> {
    const dto = parseInput(ChangePasswordDto, (name) => readField(req, name));
    const change = dto.RESETTYPE === 'REMOTE' ? this.remote.changeForCaller.bind(this.remote) : this.changer.changeLocal.bind(this.changer);
    await change(actor, parseId(decodeURIComponent(match[1]), 'resource id'), parseId(decodeURIComponent(match[2]), 'account id'), dto.NEWPASSWORD, dto.REASON, dto.TICKETID);
    return reply('Password changed successfully');
  }
}
