export * from './expiry-notices.module';
export * from './expiry-notifier';
export * from './expiry-message';
export * from './expiry-channels';
