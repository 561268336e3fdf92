import { DataSource } from 'typeorm';
import { verifyAuditChain } from '@app/audit';
import { Keyring } from '@app/crypto';
import { createDataSource } from '@app/persistence';

// Binary columns that hold no sealed secret (hashes, public CRLs, data keys wrapped by the
// master key itself). Every other bytea column is sealed with the context
// "<table>.<column>", except where SHARED_CONTEXTS says otherwise: a new secret column is
// therefore checked without a change here.
const NOT_SEALED = new Set([
  'api_tokens.token_hash',
  'audit.chain_hash',
  'audit_seals.hash',
  'audit_chain.last_hash',
  'audit_checkpoints.chain_hash',
  'certificate_authorities.crl_der',
  'data_keys.wrapped',
  // Keyed fingerprints of passwords (HMACs), compared, never opened.
  'accounts.password_fingerprint',
  'password_history.fingerprint',
]);
const SHARED_CONTEXTS: Record<string, string> = {
  'password_history.password': 'accounts.password',
  'audit_chain.sealed_key': 'audit_chain.key',
};

export interface RestoredProof {
  /** Sealed values opened with the master key, per column. */
  opened: Record<string, number>;
  auditRowsVerified: number;
  unsealedAuditRows: number;
}

/**
 * Proves a restored database usable with `masterKey`: it opens the data keys, every sealed
 * value of every table decrypts, and the audit hash chain verifies. Throws naming the first
 * problem.
 */
export async function proveRestored(url: string, masterKey: Buffer): Promise<RestoredProof> {
  const dataSource = createDataSource(url, 2);
  await dataSource.initialize();
  try {
    const keyring = new Keyring(dataSource, masterKey);
    const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM data_keys');
    if (n === 0) throw new Error('The restored database holds no data keys: it is not a backup of this server (or it is empty)');
    await keyring.load();
    const opened = await openEverySecret(dataSource, keyring);
    const audit = await verifyAuditChain(dataSource, keyring);
    if (!audit.ok) throw new Error(`The restored audit trail does not verify: ${audit.problem!.message}`);
    return { opened, auditRowsVerified: audit.checked, unsealedAuditRows: audit.unsealed };
  } finally {
    await dataSource.destroy();
  }
}

async function openEverySecret(dataSource: DataSource, keyring: Keyring): Promise<Record<string, number>> {
  const columns: { t: string; c: string }[] = await dataSource.query(
    `SELECT table_name AS t, column_name AS c FROM information_schema.columns
     WHERE table_schema = 'public' AND data_type = 'bytea' ORDER BY 1, 2`,
  );
  const opened: Record<string, number> = {};
  for (const { t, c } of columns) {
    const name = `${t}.${c}`;
    if (NOT_SEALED.has(name)) continue;
    const context = SHARED_CONTEXTS[name] ?? name;
    opened[name] = 0;
    const rows: { id: unknown; v: Buffer }[] = await dataSource.query(`SELECT ctid::text AS id, "${c}" AS v FROM "${t}" WHERE "${c}" IS NOT NULL`);
    for (const row of rows) {
      try {
        await keyring.open(row.v, context);
      } catch (error) {
        throw new Error(`${name} (row ${String(row.id)}) does not decrypt with this master key: ${(error as Error).message}`);
      }
      opened[name]++;
    }
  }
  return opened;
}
