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

const CHANGED = 'Password changed successfully';

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
    const { dto, resourceId, accountId } = this.input(req, match);
    const change = dto.RESETTYPE === 'REMOTE' ? this.remote.changeForCaller.bind(this.remote) : this.changer.changeLocal.bind(this.changer);
    await change(actor, resourceId, accountId, dto.NEWPASSWORD, dto.REASON, dto.TICKETID);
    return reply(CHANGED);
  }

  /**
   * The common call, a local change, authenticates in the change's own statement
   * (PasswordChanger.changeAsCaller). Input that does not parse, and remote changes, are
   * answered as the long way answers them: the caller is admitted first.
   */
  protected async serveAsCaller(req: AuthedRequest, match: RegExpExecArray): Promise<Reply> {
    let input: ReturnType<PasswordChangeLeanRoute['input']>;
    try {
      input = this.input(req, match);
    } catch {
      return this.serve(await this.authenticate(req), req, match);
    }
    const { dto, resourceId, accountId } = input;
    if (dto.RESETTYPE === 'REMOTE') return this.serve(await this.authenticate(req), req, match);
    await this.changer.changeAsCaller(req, resourceId, accountId, dto.NEWPASSWORD, dto.REASON, dto.TICKETID);
    return reply(CHANGED);
  }

  private input(req: AuthedRequest, match: RegExpExecArray): { dto: ChangePasswordDto; resourceId: number; accountId: number } {
    const dto = parseInput(ChangePasswordDto, (name) => readField(req, name));
    return { dto, resourceId: parseId(decodeURIComponent(match[1]), 'resource id'), accountId: parseId(decodeURIComponent(match[2]), 'account id') };
  }
}
