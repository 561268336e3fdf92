import { Global, Module } from '@nestjs/common';
import { RotationEvents } from './rotation-events';

/** The rotation webhook's outbox, for every path that rotates a password (global: the workflow and the connectors record too). */
@Global()
@Module({ providers: [RotationEvents], exports: [RotationEvents] })
export class RotationEventsModule {}
