export * from './backup-file';
export * from './prove-restored';
export * from './restore';
