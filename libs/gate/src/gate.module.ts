import { Global, Module } from '@nestjs/common';
import { AccountSecretGate } from './account-gate';

/** The gate every secret path goes through; global so that both services and every feature module share it. */
@Global()
@Module({ providers: [AccountSecretGate], exports: [AccountSecretGate] })
export class GateModule {}
