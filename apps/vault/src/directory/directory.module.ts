import { Global, Module } from '@nestjs/common';
import { DirectoryConfig } from './directory-config';
import { DirectoryController } from './directory.controller';
import { DirectoryScheduler } from './directory-scheduler';
import { DirectorySignIn } from './directory-sign-in';
import { DirectorySync } from './directory-sync';

/** Sign-in with Active Directory, import and synchronisation (issue 37). Global: the console's sign-in uses it. */
@Global()
@Module({
  controllers: [DirectoryController],
  providers: [DirectoryConfig, DirectorySync, DirectoryScheduler, DirectorySignIn],
  exports: [DirectorySignIn],
})
export class DirectoryModule {}
