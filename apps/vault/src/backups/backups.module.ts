import { Module } from '@nestjs/common';
import { ExpiryChannels } from '@app/pki/expiry-notices';
import { BackupScheduler } from './backup-scheduler';

/** Scheduled backups of the whole database (issue 39); the admin commands backup and restore write and read the same file. */
@Module({
  providers: [BackupScheduler, ExpiryChannels],
  exports: [BackupScheduler],
})
export class BackupsModule {}
