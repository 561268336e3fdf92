export * from './certificate-store';
