import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { MetricsService } from '@app/observability';
import { registerCertificateExpiryGauge, registerPkiProcessGauges } from '@app/pki/metrics';

/** The key manager's own gauges: certificates by time to expiry, keys and discoveries in this process. */
@Injectable()
export class PkiMetrics implements OnApplicationBootstrap {
  constructor(
    private readonly metrics: MetricsService,
    private readonly moduleRef: ModuleRef,
    private readonly dataSource: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    registerPkiProcessGauges(this.metrics, this.moduleRef);
    registerCertificateExpiryGauge(this.metrics, this.dataSource);
  }
}
