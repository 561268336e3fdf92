export * from './pki-metrics';
