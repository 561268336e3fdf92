export * from './openapi-document';
export * from './openapi.controller';
