export * from './audit-event';
export * from './audit-writer';
export * from './audit.module';
