import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Keyring } from '@app/crypto';
import { CHAIN_KEY_CONTEXT, genesisHash } from './audit-chain';

export interface ChainState {
  key: Buffer;
  lastId: string;
  lastHash: Buffer;
}

/**
 * The chain's HMAC key: random, sealed by the keyring (so it survives master-key rotation
 * like every other secret) and kept in the one-row audit_chain table, created on first use.
 */
export async function loadChainState(dataSource: DataSource, keyring: Keyring): Promise<ChainState> {
  let [row] = await dataSource.query('SELECT sealed_key, last_id::text AS last_id, last_hash FROM audit_chain WHERE id = 1');
  if (!row) {
    const key = randomBytes(32);
    await dataSource.query('INSERT INTO audit_chain (id, sealed_key, last_id, last_hash) VALUES (1, $1, 0, $2) ON CONFLICT (id) DO NOTHING', [
      keyring.seal(key, CHAIN_KEY_CONTEXT),
      genesisHash(key),
    ]);
    [row] = await dataSource.query('SELECT sealed_key, last_id::text AS last_id, last_hash FROM audit_chain WHERE id = 1');
  }
  return { key: await keyring.open(row.sealed_key, CHAIN_KEY_CONTEXT), lastId: row.last_id, lastHash: row.last_hash };
}
