import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AppConfig, APP_CONFIG } from '@app/config';
import { RsaKeyPool } from '..';

/**
 * The RSA-2048 pool for the lifetime of the app: started at init, drained on shutdown.
 * SSH_KEY_POOL_SIZE=0 keeps no keys ahead (each creation generates its own), for an instance
 * that does not create SSH keys and should not spend a few CPU-seconds at every start.
 */
@Injectable()
export class SshKeyPool implements OnModuleInit, OnModuleDestroy {
  readonly pool: RsaKeyPool;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.pool = new RsaKeyPool({ size: config.sshKeyPoolSize, modulusLength: 2048, concurrency: 2 });
  }

  onModuleInit(): void {
    this.pool.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.pool.stop();
  }
}
