// Unit tests (*.spec.ts beside the code) and e2e tests (test/**/*.e2e-spec.ts) run in one
// jest invocation; the global setup prepares one migrated template database, and every
// e2e file clones its own database from it (see test/support/database.ts).
const swc = JSON.parse(require('fs').readFileSync(__dirname + '/.swcrc', 'utf8'));
delete swc.$schema;
delete swc.jsc.baseUrl;
delete swc.jsc.paths;
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.spec.ts'],
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', swc] },
  moduleNameMapper: { '^@app/([a-z-]+)(/.*)?$': '<rootDir>/libs/$1/src$2' },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
