import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { runningCheckoutSql } from '@app/gate';
import { MetricsService } from '@app/observability';
import { registerPkiProcessGauges } from '@app/pki/metrics';

/** The vault's own gauges: the password workflow, plus the key and discovery machinery it runs. */
@Injectable()
export class VaultMetrics implements OnApplicationBootstrap {
  constructor(
    private readonly metrics: MetricsService,
    private readonly moduleRef: ModuleRef,
    private readonly dataSource: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    registerPkiProcessGauges(this.metrics, this.moduleRef);
    const count = async (where: string) => {
      const [row] = await this.dataSource.query(`SELECT count(*)::int AS n FROM password_requests WHERE ${where}`);
      return [[{}, row.n as number]] as [Record<string, string>, number][];
    };
    this.metrics.gauge('credvault_checkouts_in_use', 'Passwords checked out now (all instances)', [], () =>
      count(runningCheckoutSql('password_requests')),
    );
    this.metrics.gauge('credvault_accounts_by_password_status', 'Accounts under remote password reset by their last verification (all instances)', ['status'], async () => {
      const rows: { status: string; n: number }[] = await this.dataSource.query(
        `SELECT coalesce(a.password_status, 'NOT VERIFIED') AS status, count(*)::int AS n
         FROM accounts a JOIN resources r ON r.id = a.resource_id WHERE r.remote_account_id IS NOT NULL GROUP BY 1`,
      );
      return rows.map((r) => [{ status: r.status }, r.n] as [Record<string, string>, number]);
    });
    this.metrics.gauge('credvault_password_requests_waiting', 'Password requests awaiting approval (all instances)', [], () =>
      count(`status = 'waiting' AND expires_at > now()`),
    );
  }
}
