export * from './problem';
export * from './jwk';
export * from './jws';
export * from './identifiers';
export * from './tls-alpn';
