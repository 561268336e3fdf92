import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// `npm run bench -- connectors`: remote changes per second and the time to verify 1,000
// accounts, per connector kind, against the same real peers the tests use (test/support:
// sshd, a throwaway PostgreSQL, MariaDB and slapd). The peers are test fixtures, not part of
// the build, so the benchmark itself runs from the sources (as the kill -9 tests run the
// service), in a child process.
export async function main(): Promise<void> {
  const root = join(__dirname, '..', '..');
  const result = spawnSync(process.execPath, ['-r', join(root, 'test/reliability/swc-register.js'), join(root, 'bench/connectors-run.ts')], {
    cwd: root,
    stdio: 'inherit',
    env: process.env,
  });
  if (result.status !== 0) throw new Error(`connectors benchmark failed (exit ${result.status})`);
}
