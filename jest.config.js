// One jest run, two projects: `fast` (unit tests beside the code, and the e2e tests that need only
// PostgreSQL) and `peers` (the e2e tests that start a real peer: sshd, Samba, slapd, MariaDB, a
// PostgreSQL server of their own, Patroni, Chromium, certbot, TLS and SMTP servers, service
// processes). `npm test` runs both; `npm test -- --selectProjects fast` the fast half alone.
// The global setup prepares one migrated template database, and every e2e file clones its own
// database from it (see test/support/database.ts).
const { existsSync, readFileSync } = require('fs');
const { execFileSync } = require('child_process');
const swc = JSON.parse(readFileSync(__dirname + '/.swcrc', 'utf8'));
delete swc.$schema;
delete swc.jsc.baseUrl;
delete swc.jsc.paths;

// A test file that imports one of these starts a real peer (or a process, or a browser).
const PEER = /support\/(free-port|sshd|samba|slapd|mariadb|postgres-peer|connector-peers|tls-peers|smtp-sink|ocsp-responder|pg-fault-proxy)'|playwright-core|patroni|service-process|reliability\/|certbot|'lego|ansible/;

function testFiles() {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'test', 'libs', 'apps'], { cwd: __dirname, encoding: 'utf8' });
  return out.split('\n').filter((f) => f.endsWith('spec.ts') && existsSync(`${__dirname}/${f}`));
}
const peerFiles = testFiles().filter((f) => PEER.test(readFileSync(`${__dirname}/${f}`, 'utf8')));

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', swc] },
  moduleNameMapper: { '^@app/([a-z-]+)(/.*)?$': '<rootDir>/libs/$1/src$2' },
};

module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  // Three workers on the 2-core machines CI runs on: many files wait on what they drive (sshd,
  // Patroni, Chromium, `npm start`, PostgreSQL), and a waiting worker leaves its core idle.
  // Whole suite, same machine: 466 s with three against 619 s with two (docs/PERFORMANCE.md,
  // issue 40's seventh session).
  maxWorkers: 3,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  rootDir: __dirname,
  projects: [
    {
      ...common,
      displayName: 'fast',
      testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...peerFiles.map((f) => `<rootDir>/${f}`)],
    },
    { ...common, displayName: 'peers', testMatch: peerFiles.map((f) => `<rootDir>/${f}`) },
  ],
};
