// Helpers for the specs: run the independent tools (openssl, keytool) on temp files.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class TempDir {
  readonly path = mkdtempSync(join(tmpdir(), 'pki-certs-'));

  file(name: string, content?: string | Buffer): string {
    const p = join(this.path, name);
    if (content !== undefined) writeFileSync(p, content);
    return p;
  }

  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

export function openssl(...args: string[]): string {
  return execFileSync('openssl', args, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** openssl with stderr merged, for commands that print their verdict there. */
export function opensslAll(...args: string[]): string {
  return execFileSync('sh', ['-c', 'openssl "$@" 2>&1', 'openssl', ...args], { encoding: 'utf8' });
}

export function keytool(...args: string[]): string {
  return execFileSync('keytool', args, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}
