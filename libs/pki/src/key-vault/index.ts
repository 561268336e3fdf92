export * from './key-vault-input';
export * from './key-vault.module';
export * from './key-vault.service';
export * from './pki-time';
