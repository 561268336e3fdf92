import { Logger } from '@nestjs/common';
import { AppError } from './app-error';

const logger = new Logger('RequestBody');

/**
 * A throw caught at a body reader's boundary: the request is answered Failed; a throw that is
 * not a client's fault (a defect, a full disk) is logged with the request it belongs to.
 */
export function noteReaderFault(req: { requestId?: string; method?: string; url?: string }, error: unknown): void {
  if (error instanceof AppError) return;
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  logger.error(`Reading the body of request ${req.requestId ?? '-'} (${req.method} ${(req.url ?? '').split('?')[0]}) failed: ${text}`);
}
