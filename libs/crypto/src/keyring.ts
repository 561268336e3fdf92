import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { fingerprint, fingerprintKey } from './fingerprint';
import { masterKeyId } from './master-key';
import { open, seal, sealedKeyVersion, unwrapKey, wrapKey } from './secret-box';

/**
 * Holds the unwrapped data keys in memory. New secrets are sealed with the newest data
 * key; any sealed value names its key version, so rotation never strands a secret.
 */
export class Keyring {
  private keys = new Map<number, Buffer>();
  /** Fingerprint keys of the current data key, by context. */
  private fingerprintKeys = new Map<string, Buffer>();
  private current = 0;
  readonly masterId: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly masterKey: Buffer,
  ) {
    this.masterId = masterKeyId(masterKey);
  }

  /** Loads the data keys wrapped by our master key, creating the first one on a new database. */
  async load(): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(727265651)');
      const rows: { version: number; wrapped: Buffer }[] = await manager.query(
        'SELECT version, wrapped FROM data_keys WHERE master_key_id = $1 ORDER BY version',
        [this.masterId],
      );
      if (rows.length === 0) {
        const [{ n }] = await manager.query('SELECT count(*)::int AS n FROM data_keys');
        if (n > 0) {
          throw new Error('The master key does not match this database (wrong MASTER_KEY or key file)');
        }
        const key = randomBytes(32);
        await manager.query('INSERT INTO data_keys (version, master_key_id, wrapped) VALUES (1, $1, $2)', [
          this.masterId,
          wrapKey(this.masterKey, key),
        ]);
        rows.push({ version: 1, wrapped: wrapKey(this.masterKey, key) });
      }
      for (const row of rows) this.keys.set(row.version, unwrapKey(this.masterKey, row.wrapped));
      this.current = Math.max(...this.keys.keys());
      this.fingerprintKeys.clear();
    });
  }

  seal(plaintext: string | Buffer, context = ''): Buffer {
    const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
    return seal(this.keys.get(this.current)!, this.current, data, context);
  }

  /**
   * A keyed fingerprint of a secret of `subject` (an account id) under the current data key
   * (see fingerprint.ts): what the password reuse check compares. It names its key version:
   * fingerprints made under another data key are not comparable, and the check then opens
   * the sealed values.
   */
  fingerprint(plaintext: string, context: string, subject: number): Buffer {
    let key = this.fingerprintKeys.get(context);
    if (!key) this.fingerprintKeys.set(context, (key = fingerprintKey(this.keys.get(this.current)!, context)));
    return fingerprint(key, this.current, subject, Buffer.from(plaintext, 'utf8'));
  }

  async open(blob: Buffer, context = ''): Promise<Buffer> {
    const version = sealedKeyVersion(blob);
    // A data key added by a rotation on another instance is picked up here.
    if (!this.keys.has(version)) await this.load();
    const key = this.keys.get(version);
    if (!key) throw new Error(`Data key version ${version} is not available to this master key`);
    return open(key, blob, context);
  }

  /** Synchronous open for hot paths where the key version is already loaded. */
  openLoaded(blob: Buffer, context = ''): Buffer | undefined {
    const key = this.keys.get(sealedKeyVersion(blob));
    return key ? open(key, blob, context) : undefined;
  }

  async openText(blob: Buffer, context = ''): Promise<string> {
    return (await this.open(blob, context)).toString('utf8');
  }
}
