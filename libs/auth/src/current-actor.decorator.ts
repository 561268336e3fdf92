import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Actor } from '@app/audit';
import { AuthedRequest } from './token.guard';

/** The authenticated caller (set by TokenGuard). */
export const CurrentActor = createParamDecorator((_: unknown, ctx: ExecutionContext): Actor => {
  const actor = ctx.switchToHttp().getRequest<AuthedRequest>().actor;
  if (!actor) throw new Error('CurrentActor used on a public route');
  return actor;
});
