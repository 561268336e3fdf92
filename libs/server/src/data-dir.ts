import { chmodSync, mkdirSync, statSync } from 'node:fs';

/**
 * DATA_DIR holds the master key, the TLS key and the first token: only the service's user may
 * enter it. Made 0700 when missing; a folder open to others is tightened (and said so), or,
 * when that is not allowed, the start stops naming the folder and its mode (issue 34).
 */
export function secureDataDir(dir: string, warn: (message: string) => void): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  try {
    chmodSync(dir, 0o700);
  } catch (error) {
    throw new Error(`DATA_DIR ${dir} has mode ${mode.toString(8)}, open to other users, and cannot be made 0700 (${(error as NodeJS.ErrnoException).code}); run chmod 700 ${dir}`);
  }
  warn(`DATA_DIR ${dir} had mode ${mode.toString(8)}, open to other users; it is 0700 now`);
}
