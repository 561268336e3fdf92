export * from './data-source';
export * from './embedded';
export * from './entities';
export * from './listened-client';
export * from './migrate';
export * from './snake-naming.strategy';
export * from './sql';
