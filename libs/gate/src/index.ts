export * from './secret-use';
