export * from './connector';
export * from './ldap-dn';
export * from './registry';
export { scramVerifier } from './postgresql-scram';
export { openDirectory } from './ldap-client';
export { adFailure, bindName, domainOf } from './active-directory';
