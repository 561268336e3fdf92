import { AuditSealer, verifyAuditChain } from '@app/audit';
import { AdminCommand } from './command';

export const verifyAuditCommand: AdminCommand = {
  name: 'verify-audit',
  usage: 'verify-audit [--seal]',
  summary: 'Check the audit hash chain; reports the first altered, inserted or removed row (--seal: seal committed rows first)',
  async run(ctx, args) {
    const keyring = await ctx.keyring();
    if (args.seal === true) await new AuditSealer(ctx.dataSource, keyring).sealNow();
    const report = await verifyAuditChain(ctx.dataSource, keyring);
    if (!report.ok) {
      console.log(`FAILED after ${report.checked} intact rows: ${report.problem!.kind} row ${report.problem!.id}`);
      throw new Error(`Audit trail is not intact: ${report.problem!.message}`);
    }
    console.log(`OK: ${report.checked} sealed rows intact up to audit id ${report.headId}; ${report.unsealed} newer rows not sealed yet.`);
  },
};
