export * from './audit-chain';
export * from './audit-chain-key';
export * from './audit-counts';
export * from './audit-event';
export * from './audit-sealer';
export * from './audit-verifier';
export * from './audit-writer';
export * from './audit.module';
