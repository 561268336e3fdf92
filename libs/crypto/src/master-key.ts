import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface MasterKeySource {
  masterKey?: string;
  masterKeyFile?: string;
  dataDir: string;
}

export function parseKeyMaterial(text: string): Buffer {
  const value = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error('A master key must be 32 bytes (64 hex characters or base64)');
  return key;
}

export function defaultMasterKeyFile(dataDir: string): string {
  return join(dataDir, 'master.key');
}

/** MASTER_KEY, else MASTER_KEY_FILE, else DATA_DIR/master.key (created at first start, 0600). */
export function loadMasterKey(source: MasterKeySource): Buffer {
  if (source.masterKey) return parseKeyMaterial(source.masterKey);
  const file = source.masterKeyFile ?? defaultMasterKeyFile(source.dataDir);
  if (!existsSync(file)) {
    if (source.masterKeyFile) throw new Error(`MASTER_KEY_FILE ${file} does not exist`);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another instance sharing DATA_DIR made it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return parseKeyMaterial(readFileSync(file, 'utf8'));
}

export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}
