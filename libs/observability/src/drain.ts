import { Injectable } from '@nestjs/common';
import { IncomingMessage, ServerResponse } from 'node:http';
import { LeanRoute, LeanRoutes, sendJson } from '@app/http';

/**
 * One service's shutdown state: whether it is draining (SIGTERM received) and how many
 * requests are in flight. The request observer counts; the shutdown sequence waits.
 */
@Injectable()
export class Drain {
  draining = false;
  private inFlight = 0;
  private waiters: (() => void)[] = [];

  get requestsInFlight(): number {
    return this.inFlight;
  }

  begin(): void {
    this.draining = true;
  }

  requestStarted(): void {
    this.inFlight++;
  }

  requestEnded(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight === 0) for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once no request is in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/**
 * While draining, GET /health answers 503 before anything else looks at it, so a load
 * balancer takes the instance out while its in-flight requests finish.
 */
@Injectable()
export class DrainingHealthRoute extends LeanRoute {
  constructor(
    private readonly drain: Drain,
    routes: LeanRoutes,
  ) {
    super();
    routes.register(this);
  }

  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.drain.draining || req.method !== 'GET' || !/^\/+health\/*(\?.*)?$/.test(req.url ?? '')) return false;
    sendJson(res, 503, { status: 'draining' });
    return true;
  }
}
