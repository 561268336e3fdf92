export * from './authenticator';
export * from './current-actor.decorator';
export * from './failed-auth-throttle';
export * from './host-binding';
export * from './permissions';
export * from './token.guard';
export * from './lean-write-route';
export * from './org-scope';
