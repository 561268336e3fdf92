export * from './logger';
export * from './metrics.controller';
export * from './metrics.service';
export * from './request-observer';
export * from './drain';
export * from './process-faults';
