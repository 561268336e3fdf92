import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// `npm run bench -- directory`: import of BENCH_USERS users (default 5,000) in BENCH_GROUPS
// groups (default 200) from a Samba AD DC, then a synchronisation with nothing changed. The
// Samba DC is a test fixture, so the benchmark runs from the sources in a child process.
export async function main(): Promise<void> {
  const root = join(__dirname, '..', '..');
  const result = spawnSync(process.execPath, ['-r', join(root, 'test/reliability/swc-register.js'), join(root, 'bench/directory-run.ts')], { cwd: root, stdio: 'inherit', env: process.env });
  if (result.status !== 0) throw new Error(`directory benchmark failed (exit ${result.status})`);
}
