import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode } from '@app/http';
import { AcmeProblem } from '@app/pki/acme';
import { AcmeHttp } from './acme-http';

/**
 * ACME routes answer errors as RFC 7807 problem documents (application/problem+json) with a
 * fresh nonce, never the legacy envelope. Unexpected faults: 500 with an id that is in the log.
 */
@Catch()
export class AcmeProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ACME');

  constructor(private readonly http: AcmeHttp) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    const problem = toProblem(exception, req, this.logger);
    if (res.headersSent) return;
    try {
      await this.http.send(res, this.http.urls(req as never), { status: problem.status, body: problem.toDocument(), contentType: 'application/problem+json' });
    } catch (error) {
      // The nonce could not be stored (database down): answer without one.
      this.logger.error(`problem reply failed: ${(error as Error).message}`);
      if (!res.headersSent) res.status(500).type('application/problem+json').send(JSON.stringify(problem.toDocument()));
    }
  }
}

function toProblem(exception: unknown, req: Request, logger: Logger): AcmeProblem {
  if (exception instanceof AcmeProblem) return exception;
  if (exception instanceof AppError) {
    const status = exception.code === ErrorCode.NotFound ? 404 : exception.code === ErrorCode.Forbidden ? 403 : 400;
    return new AcmeProblem(status === 403 ? 'unauthorized' : 'malformed', exception.message, status);
  }
  if (exception instanceof HttpException && exception.getStatus() < 500) return new AcmeProblem('malformed', exception.message, exception.getStatus());
  const id = randomUUID();
  logger.error(`${id} ${req.method} ${req.path}: ${exception instanceof Error ? `${exception.message}\n${exception.stack}` : String(exception)}`);
  return new AcmeProblem('serverInternal', `Internal server error (error id ${id})`, 500);
}
