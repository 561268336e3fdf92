import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { RsaKeyPool } from '..';

/** The RSA-2048 pool for the lifetime of the app: started at init, drained on shutdown. */
@Injectable()
export class SshKeyPool implements OnModuleInit, OnModuleDestroy {
  readonly pool = new RsaKeyPool({ size: 4, modulusLength: 2048, concurrency: 2 });

  onModuleInit(): void {
    this.pool.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.pool.stop();
  }
}
