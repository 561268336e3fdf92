import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode } from './app-error';
import { dataErrorMessage, isDatabaseUnavailable } from './driver-errors';
import { buildEnvelope } from './envelope';
import { Layout, LAYOUT, OPERATION, OperationMeta } from './operation.decorator';
import { noteAnswer } from './request-note';

export interface RouteInfo {
  handler?: Function;
  controller?: Function;
}

/** The guard records the matched route here, for errors raised outside its context. */
export interface RouteAware {
  route_?: RouteInfo;
}

/**
 * The one place errors become responses. Application errors: HTTP 200, status Failed,
 * the message. Anything else: 500 with an error id that is in the log, never a stack.
 */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly reflector: Reflector,
    private readonly defaultLayout: Layout,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request & { route?: unknown }>();
    const res = ctx.getResponse<Response>();
    const route = this.routeOf(host, req);
    const meta = route.handler ? this.reflector.get<OperationMeta>(OPERATION, route.handler) : undefined;
    const layout =
      (route.handler && this.reflector.get<Layout>(LAYOUT, route.handler)) ??
      (route.controller && this.reflector.get<Layout>(LAYOUT, route.controller)) ??
      this.defaultLayout;

    const answer = errorAnswer(exception, { layout, meta }, req.method, req.path, this.logger);
    noteAnswer(res, answer.status, 'Failed', answer.errorId);
    if (res.headersSent) return;
    res.status(answer.status).json(answer.body);
  }

  private routeOf(host: ArgumentsHost, req: Request): RouteInfo {
    // Errors from parameter decorators reach us without a handler: the guard pinned it.
    const ctx = host as Partial<{ getHandler(): Function; getClass(): Function }>;
    const handler = typeof ctx.getHandler === 'function' ? ctx.getHandler() : undefined;
    if (handler) return { handler, controller: ctx.getClass?.() };
    return (req as RouteAware).route_ ?? {};
  }
}

/**
 * How an error is answered (also used by the lean hot path, which has no Nest context):
 * application errors HTTP 200 Failed with their message; unknown routes 404; anything else
 * 500 with an error id that is logged with the stack.
 */
export function errorAnswer(
  exception: unknown,
  route: { layout: Layout; meta?: OperationMeta },
  method: string,
  path: string,
  logger: Logger,
): { status: number; body: Record<string, unknown>; errorId?: string } {
  let status = 200;
  let errorId: string | undefined;
  let name = route.meta?.name ?? '';
  let message: string;
  let details: unknown;
  if (exception instanceof AppError) {
    message = exception.message;
    details = exception.details;
    if (isAuthError(exception.code)) name = 'Authentication';
  } else if (exception instanceof HttpException && exception.getStatus() === 404) {
    status = 404;
    message = `No such operation: ${method} ${path}`;
  } else if (exception instanceof HttpException && exception.getStatus() < 500) {
    message = exception.message;
  } else if (dataErrorMessage(exception)) {
    // Input PostgreSQL refused as data: the client's to fix, and nothing was written.
    message = dataErrorMessage(exception)!;
    logger.warn(`${method} ${path}: refused by the database as data: ${(exception as Error).message}`);
  } else if (isDatabaseUnavailable(exception)) {
    status = 503;
    message = DATABASE_UNAVAILABLE_MESSAGE;
    logger.warn(`${method} ${path}: database unavailable: ${(exception as Error)?.message ?? String(exception)}`);
  } else {
    status = 500;
    const id = (errorId = randomUUID());
    message = `Internal server error (error id ${id})`;
    logger.error(`${id} ${method} ${path}: ${describe(exception)}`);
  }
  const body = buildEnvelope({ layout: route.layout, name, status: 'Failed', reply: { message, details }, capitalResult: route.meta?.capitalResult });
  return { status, body, errorId };
}

export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is unavailable; try again shortly';

function isAuthError(code: ErrorCode): boolean {
  return [ErrorCode.AuthFailed, ErrorCode.HostNotAllowed, ErrorCode.UserLocked, ErrorCode.UserExpired].includes(code);
}

// The stack goes to the log only; messages of driver errors never carry parameter values.
function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}\n${error.stack ?? ''}`;
  return String(error);
}
