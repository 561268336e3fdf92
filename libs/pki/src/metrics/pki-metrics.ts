import { ModuleRef } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { MetricsService } from '@app/observability';
import { DiscoveryService } from '../discovery-service';
import { SshKeyPool } from '@app/ssh/service';

/** Gauges of this process's key and discovery machinery, wherever the service runs it. */
export function registerPkiProcessGauges(metrics: MetricsService, moduleRef: ModuleRef): void {
  const discovery = optional(moduleRef, DiscoveryService);
  if (discovery) {
    metrics.gauge('credvault_discovery_jobs_running', 'SSL discoveries running in this process', [], () => [[{}, discovery.runningCount]]);
  }
  const keys = optional(moduleRef, SshKeyPool);
  if (keys) {
    metrics.gauge('credvault_ssh_key_pool_available', 'Pre-generated RSA keys ready in this process (createsshkey takes from the pool)', [], () => [
      [{}, keys.pool.available],
    ]);
  }
}

// Disjoint buckets of days left, every one always present (a bucket with no certificate shows 0).
const EXPIRY_BUCKETS = ['expired', '7d', '30d', '90d', 'later'] as const;

/** Certificates in the inventory (not revoked) by how soon they expire: expired, within 7, 30, 90 days, later. */
export function registerCertificateExpiryGauge(metrics: MetricsService, dataSource: DataSource): void {
  metrics.gauge('credvault_certificates', 'Certificates in the inventory, not revoked, by time left before expiry', ['expires_within'], async () => {
    const rows: { bucket: string; n: number }[] = await dataSource.query(
      `SELECT CASE WHEN not_after <= now() THEN 'expired'
                   WHEN not_after <= now() + interval '7 days' THEN '7d'
                   WHEN not_after <= now() + interval '30 days' THEN '30d'
                   WHEN not_after <= now() + interval '90 days' THEN '90d'
                   ELSE 'later' END AS bucket, count(*)::int AS n
       FROM certificates WHERE revoked_at IS NULL GROUP BY 1`,
    );
    const counts = new Map(rows.map((r) => [r.bucket, r.n]));
    return EXPIRY_BUCKETS.map((bucket) => [{ expires_within: bucket }, counts.get(bucket) ?? 0]);
  });
}

function optional<T>(moduleRef: ModuleRef, type: new (...args: never[]) => T): T | undefined {
  try {
    return moduleRef.get(type, { strict: false });
  } catch {
    return undefined;
  }
}
