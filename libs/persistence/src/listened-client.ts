import { Logger } from '@nestjs/common';
import { Client, ClientConfig } from 'pg';

const logger = new Logger('Database');

/**
 * The pool's client class: one that always has an 'error' listener. pg-pool removes its own
 * listener while a client is checked out and leaves errors to the holder, and an 'error' event
 * nobody listens to is an uncaught exception that ends the process. A client held between
 * queries (a query runner in a transaction, a pool checkout) when PostgreSQL goes away
 * (shutdown, restart, pg_terminate_backend: 57P01) would otherwise crash the service. The pool
 * and the holder still hear the error as before and drop the client; this only keeps it from
 * going unheard.
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
  }
}

let closingOnPurpose = false;

/** The process is shutting down: the connections it loses from now on are ones it closes. */
export function expectDatabaseConnectionsToClose(): void {
  closingOnPurpose = true;
}
