import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Actor } from '@app/audit';
import { ParsedRequest, PERMISSION, PUBLIC, RouteAware } from '@app/http';
import { Authenticator } from './authenticator';

export interface AuthedRequest extends ParsedRequest, RouteAware {
  actor?: Actor;
}

const IN_HANDLER = 'auth:in-handler';

/**
 * For the one hot route whose single SQL statement authenticates the caller itself
 * (PasswordReader.readAsCaller): the guard leaves the look-up to it. Such a handler
 * must call the Authenticator on every path that does not authenticate in SQL.
 */
export const AuthenticatedInHandler = () => SetMetadata(IN_HANDLER, true);

/**
 * Deny by default: every route needs a valid token and the permission it declares,
 * unless it is @Public().
 */
@Injectable()
export class TokenGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    req.route_ = { handler: context.getHandler(), controller: context.getClass() };
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, targets)) return true;
    if (this.reflector.get<boolean>(IN_HANDLER, context.getHandler())) return true;
    req.actor = await this.authenticator.authenticate(req, this.reflector.get<string>(PERMISSION, context.getHandler()));
    return true;
  }
}
