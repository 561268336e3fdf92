import { Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { processMetrics } from './metrics.service';

export type FaultKind = 'uncaught_exception' | 'unhandled_rejection';

let faults: Counter<'kind'> | undefined;
function counter(): Counter<'kind'> {
  faults ??= new Counter({
    name: 'credvault_process_faults_total',
    help: 'Errors that reached the process instead of a request (uncaught exceptions, unhandled rejections); the process kept serving',
    labelNames: ['kind'],
    registers: [processMetrics()],
  });
  // Both series exist from the start at 0, so an alert on their increase sees the first one.
  for (const kind of ['uncaught_exception', 'unhandled_rejection'] as const) faults.inc({ kind }, 0);
  return faults;
}

const logger = new Logger('Process');

/**
 * Logs and counts an error that escaped every request handler. The process keeps serving:
 * every reader and handler catches at its own boundary, so what arrives here is a defect in
 * code that holds no request's state half-written (database work is transactional), and one
 * bad request must not take both services away from every client. Should the process die
 * anyway (out of memory, a native crash), the supervisor restarts it (docs/operations.md).
 */
export function recordProcessFault(kind: FaultKind, error: unknown): void {
  counter().inc({ kind });
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : `non-error value of type ${typeof error}`;
  logger.error(`${kind === 'uncaught_exception' ? 'Uncaught exception' : 'Unhandled rejection'} (the process keeps serving): ${text}`);
}

let installed: (() => void) | undefined;

/** Installs the process-wide handlers once (every entry point of the services calls this); returns their removal. */
export function installProcessFaultHandlers(): () => void {
  if (installed) return installed;
  counter();
  const onException = (error: Error) => recordProcessFault('uncaught_exception', error);
  const onRejection = (reason: unknown) => recordProcessFault('unhandled_rejection', reason);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  installed = () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
    installed = undefined;
  };
  return installed;
}
