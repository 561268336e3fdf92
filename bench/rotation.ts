import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// `npm run bench -- rotation`: accounts rotated per minute by a schedule, per connector kind,
// against the same real peers the tests use. The peers are test fixtures, not part of the
// build, so the benchmark runs from the sources in a child process (as `connectors` does).
export async function main(): Promise<void> {
  const root = join(__dirname, '..', '..');
  const result = spawnSync(process.execPath, ['-r', join(root, 'test/reliability/swc-register.js'), join(root, 'bench/rotation-run.ts')], {
    cwd: root,
    stdio: 'inherit',
    env: process.env,
  });
  if (result.status !== 0) throw new Error(`rotation benchmark failed (exit ${result.status})`);
}
