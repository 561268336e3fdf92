import { Module } from '@nestjs/common';
import { UnmanagedServiceModule } from '@app/pki/unmanaged';
import { UnmanagedController } from './unmanaged.controller';

@Module({ imports: [UnmanagedServiceModule], controllers: [UnmanagedController] })
export class UnmanagedModule {}
