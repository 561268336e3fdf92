export * from './bootstrap-admin';
export * from './core.module';
export * from './create-app';
export * from './database';
export * from './start';
export * from './tls';
export * from './health.controller';
export * from './openapi';
