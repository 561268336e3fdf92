import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temp directory for key files handed to the real ssh-keygen. */
export class KeyFiles {
  readonly dir = mkdtempSync(join(tmpdir(), 'ssh-spec-'));
  private count = 0;

  write(content: string, mode = 0o600): string {
    const path = join(this.dir, `key${(this.count += 1)}`);
    writeFileSync(path, content, { mode });
    return path;
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `SHA256:...` from `ssh-keygen -lf`. */
export function keygenFingerprint(publicKeyFile: string): string {
  return execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', publicKeyFile], { encoding: 'utf8' }).split(' ')[1];
}

/** Public line printed by `ssh-keygen -y`, or null when it cannot open the key. */
export function keygenPublicFromPrivate(privateKeyFile: string, passphrase = ''): string | null {
  const result = spawnSync('ssh-keygen', ['-y', '-P', passphrase, '-f', privateKeyFile], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

export function keygenCreate(file: string, type: string, options: { passphrase?: string; pem?: boolean; bits?: number; comment?: string }): void {
  const args = ['-q', '-t', type, '-N', options.passphrase ?? '', '-f', file, '-C', options.comment ?? 'spec@test'];
  if (options.pem) args.push('-m', 'PEM');
  if (options.bits) args.push('-b', String(options.bits));
  execFileSync('ssh-keygen', args);
}

export function blobOf(line: string): string {
  return line.split(' ').slice(0, 2).join(' ');
}
