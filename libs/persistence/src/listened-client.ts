import { Logger } from '@nestjs/common';
import { Client, ClientConfig } from 'pg';

const logger = new Logger('Database');

/**
 * SQLSTATEs after which a connection is not worth keeping: the server is read-only (25006, a
 * demoted primary that kept its sessions), shutting down or restarting (57P01-57P03), or the
 * connection itself failed (class 08). Every later statement on it would fail the same way.
 */
export function isConnectionEndingCode(code: string | undefined): boolean {
  return !!code && (code === '25006' || /^57P0[123]$/.test(code) || code.startsWith('08'));
}

const SYNC_WAIT_CANCELLED = /canceling (the )?wait for synchronous replication/i;

/**
 * The pool's client class: one that always has an 'error' listener. pg-pool removes its own
 * listener while a client is checked out and leaves errors to the holder, and an 'error' event
 * nobody listens to is an uncaught exception that ends the process. A client held between
 * queries (a query runner in a transaction, a pool checkout) when PostgreSQL goes away
 * (shutdown, restart, pg_terminate_backend: 57P01) would otherwise crash the service. The pool
 * and the holder still hear the error as before and drop the client; this only keeps it from
 * going unheard.
 *
 * It also ends itself after an error that says the server will not take writes any more
 * (isConnectionEndingCode), once the statement has had its answer: TypeORM gives a connection
 * back to the pool without the error, and pg-pool would hand it out again, failing every
 * request until the server restarted. An ended client is dropped by the pool on release.
 */
export class ListenedClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', (error: Error & { code?: string }) => {
      const text = `Database connection lost: ${error.message}${error.code ? ` (${error.code})` : ''}`;
      // Connections this process closes itself on its way out (its pools, its embedded server) are no news.
      if (closingOnPurpose) logger.debug(text);
      else logger.warn(text);
    });
    const connection = (this as unknown as { connection: NodeJS.EventEmitter }).connection;
    let ending = false;
    connection.on('errorMessage', (message: { code?: string }) => {
      if (!ending && isConnectionEndingCode(message.code)) {
        ending = true;
        const text = `Database connection dropped after SQLSTATE ${message.code}`;
        if (closingOnPurpose) logger.debug(text);
        else logger.warn(text);
      }
    });
    // A commit whose wait for the synchronous standby was cancelled (statement_timeout, a
    // cancel request) is committed on this node only, and PostgreSQL says so in a warning, not
    // an error: a failover may yet lose it. Its statement fails here (08007: transaction
    // resolution unknown), so that no change is acknowledged and no secret leaves on an audit
    // row that might not survive.
    connection.on('notice', (message: { message?: string }) => {
      if (!SYNC_WAIT_CANCELLED.test(message.message ?? '')) return;
      const active = (this as unknown as { _activeQuery?: { _canceledDueToError?: unknown } })._activeQuery;
      if (active) active._canceledDueToError = Object.assign(new Error(`Commit not confirmed by the synchronous standby: ${message.message}`), { code: '08007' });
      ending = true;
      logger.warn('Database connection dropped: a commit was not confirmed by the synchronous standby');
    });
    // Listeners added here run before the client's own: on the next tick its statement has
    // been answered (the caller sees the real error) and no other has been sent yet.
    connection.on('readyForQuery', () => {
      if (ending) process.nextTick(() => void this.end().catch(() => undefined));
    });
  }
}

let closingOnPurpose = false;

/** The process is shutting down: the connections it loses from now on are ones it closes. */
export function expectDatabaseConnectionsToClose(): void {
  closingOnPurpose = true;
}
