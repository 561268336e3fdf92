export * from './pgp-input';
export * from './pgp-keys.service';
export * from './pgp-user-name';
export * from './pgp.module';
