// Pure unit tests only (no database): `npx jest -c jest.unit.config.js libs/crypto`.
const base = require('./jest.config');
module.exports = {
  ...base,
  testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'],
  globalSetup: undefined,
  globalTeardown: undefined,
};
