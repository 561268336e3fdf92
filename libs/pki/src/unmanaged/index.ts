export * from './keystore-files';
export * from './unmanaged-certificates.service';
export * from './unmanaged-input';
export * from './unmanaged.module';
