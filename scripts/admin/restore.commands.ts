import { loadMasterKey } from '@app/crypto';
import { required } from './args';
import { AdminCommand } from './command';
import { verifyRestore } from './verify-restore';

export const verifyRestoreCommand: AdminCommand = {
  name: 'verify-restore',
  usage: 'verify-restore --dump FILE [--keep]',
  summary: 'Restore a pg_dump into a scratch database on the same server; prove every secret decrypts with the master key and the audit chain verifies',
  async run(ctx, args) {
    const report = await verifyRestore(ctx.databaseUrl, required(args, 'dump'), loadMasterKey(ctx.config), args.keep === true);
    const secrets = Object.entries(report.opened).map(([column, n]) => `${column} ${n}`).join(', ');
    console.log(`OK: restored into ${report.database}${args.keep === true ? ' (kept)' : ' (dropped)'}.`);
    console.log(`Decrypted with the master key: ${secrets}.`);
    console.log(`Audit chain: ${report.auditRowsVerified} sealed rows verify; ${report.unsealedAuditRows} newer rows not sealed yet.`);
  },
};
