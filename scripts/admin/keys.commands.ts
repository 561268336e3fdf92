import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { AuditOperation, AuditWriter } from '@app/audit';
import { defaultMasterKeyFile, loadMasterKey, parseKeyMaterial, retireOtherMasterKeys, rotateMasterKey } from '@app/crypto';
import { runMigrations } from '@app/persistence';
import { optional } from './args';
import { AdminCommand } from './command';

export const migrateCommand: AdminCommand = {
  name: 'migrate',
  usage: 'migrate',
  summary: 'Apply pending database migrations (the services also do this at start)',
  async run(ctx) {
    const applied = await runMigrations(ctx.databaseUrl);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'The database is up to date.');
  },
};

export const rotateMasterKeyCommand: AdminCommand = {
  name: 'rotate-master-key',
  usage: 'rotate-master-key [--new-key-file F] [--finish]',
  summary: 'Re-wrap every data key under a new master key (no downtime); --finish drops the old wraps',
  async run(ctx, args) {
    const current = loadMasterKey(ctx.config);
    if (args.finish === true) {
      const removed = await retireOtherMasterKeys(ctx.dataSource, current);
      console.log(`Removed ${removed} data key wraps of retired master keys.`);
      return;
    }
    const newKeyFile = optional(args, 'new-key-file');
    const fresh = newKeyFile ? parseKeyMaterial(readFileSync(newKeyFile, 'utf8')) : randomBytes(32);
    const result = await rotateMasterKey(ctx.dataSource, current, fresh);
    await new AuditWriter(ctx.dataSource).record({
      category: 'User',
      operation: AuditOperation.MasterKeyRotated,
      description: `master key ${result.oldMasterId} -> ${result.newMasterId}; new data key version ${result.newDataKeyVersion}`,
    });
    // In the default set-up the key lives in DATA_DIR: replace it, keeping the old one beside it.
    if (!ctx.config.masterKey && !newKeyFile) {
      const file = ctx.config.masterKeyFile ?? defaultMasterKeyFile(ctx.config.dataDir);
      if (existsSync(file)) renameSync(file, `${file}.previous`);
      writeFileSync(file, fresh.toString('hex') + '\n', { mode: 0o600 });
      console.log(`Wrote the new master key to ${file} (the old one is ${file}.previous).`);
    } else if (!newKeyFile) {
      console.log(`New master key (set it as MASTER_KEY on every instance): ${fresh.toString('hex')}`);
    }
    console.log(
      `Re-wrapped ${result.dataKeys - 1} data keys and added data key v${result.newDataKeyVersion}. ` +
        'Restart each instance with the new key, then run rotate-master-key --finish.',
    );
  },
};
