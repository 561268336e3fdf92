import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { masterKeyId } from './master-key';
import { unwrapKey, wrapKey } from './secret-box';

export interface RotationResult {
  oldMasterId: string;
  newMasterId: string;
  dataKeys: number;
  newDataKeyVersion: number;
}

/**
 * Wraps every data key under the new master key as well, and adds a fresh data key for
 * new secrets, wrapped under both. Instances still running with the old master key keep
 * working; once all run with the new one, `retireMasterKey` drops the old wraps.
 */
export async function rotateMasterKey(dataSource: DataSource, oldKey: Buffer, newKey: Buffer): Promise<RotationResult> {
  const oldId = masterKeyId(oldKey);
  const newId = masterKeyId(newKey);
  if (oldId === newId) throw new Error('The new master key is the same as the current one');
  return dataSource.transaction(async (manager) => {
    await manager.query('SELECT pg_advisory_xact_lock(727265651)');
    const rows: { version: number; wrapped: Buffer }[] = await manager.query(
      'SELECT version, wrapped FROM data_keys WHERE master_key_id = $1 ORDER BY version',
      [oldId],
    );
    if (rows.length === 0) throw new Error('The current master key does not match this database');
    for (const row of rows) {
      const key = unwrapKey(oldKey, row.wrapped);
      await manager.query(
        `INSERT INTO data_keys (version, master_key_id, wrapped) VALUES ($1, $2, $3)
         ON CONFLICT (version, master_key_id) DO UPDATE SET wrapped = EXCLUDED.wrapped`,
        [row.version, newId, wrapKey(newKey, key)],
      );
    }
    const version = rows[rows.length - 1].version + 1;
    const fresh = randomBytes(32);
    for (const [id, master] of [[oldId, oldKey], [newId, newKey]] as const) {
      await manager.query('INSERT INTO data_keys (version, master_key_id, wrapped) VALUES ($1, $2, $3)', [
        version,
        id,
        wrapKey(master, fresh),
      ]);
    }
    return { oldMasterId: oldId, newMasterId: newId, dataKeys: rows.length + 1, newDataKeyVersion: version };
  });
}

/** Removes the wraps of every master key other than `currentKey`. */
export async function retireOtherMasterKeys(dataSource: DataSource, currentKey: Buffer): Promise<number> {
  const id = masterKeyId(currentKey);
  const result = await dataSource.query('DELETE FROM data_keys WHERE master_key_id <> $1', [id]);
  return result[1] ?? 0;
}
