import { Module } from '@nestjs/common';
import { UnmanagedServiceModule } from '../../../../libs/pki/src/unmanaged';
import { UnmanagedController } from './unmanaged.controller';

@Module({ imports: [UnmanagedServiceModule], controllers: [UnmanagedController] })
export class UnmanagedModule {}
