export * from './discovery-input';
export * from './discovery-job';
export * from './discovery-limits';
export * from './discovery-reply';
export * from './discovery-service.module';
export * from './discovery.service';
export * from './vulnerability-counts.service';
