import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';

export const SERVICE_NAME = 'observability:service-name';

export type Labels = Record<string, string>;
export type Sample = [Labels, number];

// Process-wide metrics (CPU, memory, GC, event loop delay): one set per process, shown on every port.
let processRegistry: Registry | undefined;
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 20 });
    // Gauges named like counters (promtool's lint refuses them); nodejs_active_* by type remain.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      processRegistry.removeSingleMetric(name);
    }
  }
  return processRegistry;
}

interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * The Prometheus metrics of one service. Labels are bounded by construction: the service,
 * the operation name from route metadata (never the path), an outcome from a fixed set, and
 * fixed state names. Gauges read their value at scrape time.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly requests: Counter<'operation' | 'method' | 'outcome'>;
  readonly duration: Histogram<'operation' | 'outcome'>;

  constructor(
    @Inject(SERVICE_NAME) readonly service: string,
    private readonly dataSource: DataSource,
  ) {
    this.registry.setDefaultLabels({ service });
    processMetrics();
    this.requests = new Counter({
      name: 'credvault_http_requests_total',
      help: 'Requests answered, by operation name and outcome (success, failed, error, not_found, aborted)',
      labelNames: ['operation', 'method', 'outcome'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'credvault_http_request_duration_seconds',
      help: 'Time from request to the end of the answer, by operation name and outcome',
      labelNames: ['operation', 'outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [this.registry],
    });
    this.gauge('credvault_db_pool_connections', 'Database connections of this service by state (in_use, idle)', ['state'], () => {
      const pool = this.pool();
      return pool ? [[{ state: 'in_use' }, pool.totalCount - pool.idleCount], [{ state: 'idle' }, pool.idleCount]] : [];
    });
    this.gauge('credvault_db_pool_waiting', 'Queries waiting for a free database connection', [], () => {
      const pool = this.pool();
      return pool ? [[{}, pool.waitingCount]] : [];
    });
    const audit = () => this.auditState();
    this.gauge('credvault_audit_rows', 'Audit rows written (all instances: sealed plus not yet sealed)', [], async () => [[{}, (await audit()).written]]);
    this.gauge('credvault_audit_unsealed_rows', 'Audit rows not yet sealed into the hash chain', [], async () => [[{}, (await audit()).unsealed]]);
    this.gauge('credvault_audit_sealer_lag_seconds', 'Age of the oldest audit row not yet sealed (0 when all are sealed)', [], async () => [
      [{}, (await audit()).lag],
    ]);
  }

  /** A gauge computed at scrape time; a failing read leaves it empty rather than failing the scrape. */
  gauge(name: string, help: string, labelNames: string[], read: () => Sample[] | Promise<Sample[]>): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        let samples: Sample[] = [];
        try {
          samples = await read();
        } catch {
          return;
        }
        for (const [labels, value] of samples) this.set(labels, value);
      },
    });
  }

  /** The text exposition format: process metrics, then this service's. */
  async exposition(): Promise<string> {
    return (await processMetrics().metrics()) + '\n' + (await this.registry.metrics());
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private pool(): PgPool | undefined {
    return (this.dataSource.driver as unknown as { master?: PgPool }).master;
  }

  // One query per scrape feeds the three audit gauges.
  private auditRead?: Promise<{ written: number; unsealed: number; lag: number }>;
  private auditState(): Promise<{ written: number; unsealed: number; lag: number }> {
    this.auditRead ??= this.dataSource
      .query(
        `WITH c AS (SELECT coalesce((SELECT last_id FROM audit_chain WHERE id = 1), 0) AS last_id,
                           coalesce((SELECT sealed_rows FROM audit_chain WHERE id = 1), 0) AS sealed)
         SELECT c.sealed + u.n AS written, u.n AS unsealed, coalesce(extract(epoch FROM now() - u.oldest), 0)::float AS lag
         FROM c, LATERAL (SELECT count(*) AS n, min(created_at) AS oldest FROM audit WHERE id > c.last_id) u`,
      )
      .then(([row]: { written: string; unsealed: string; lag: number }[]) => ({ written: Number(row.written), unsealed: Number(row.unsealed), lag: Math.max(0, row.lag) }))
      .finally(() => setImmediate(() => (this.auditRead = undefined)));
    return this.auditRead;
  }
}
