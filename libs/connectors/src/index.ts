export * from './connector';
export * from './ldap-dn';
export * from './registry';
export { scramVerifier } from './postgresql-scram';
