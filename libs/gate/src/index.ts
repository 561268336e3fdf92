export * from './secret-use';
export * from './pki-secret-gate';
export * from './pki-secret-gate.module';
