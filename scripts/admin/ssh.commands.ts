import { AuditWriter } from '@app/audit';
import { SshHostKeys } from '@app/ssh';
import { parseResourceName } from '@app/ssh/service';
import { optional, required } from './args';
import { AdminCommand } from './command';
import { orgId } from './context';

export const acceptHostKeyCommand: AdminCommand = {
  name: 'accept-host-key',
  usage: 'accept-host-key --host HOST[:PORT] [--fingerprint SHA256:...] [--org NAME]',
  summary: 'Pin a new SSH host key for a host (the given one, else the one it last presented and was refused for); audited',
  async run(ctx, args) {
    const where = parseResourceName(required(args, 'host'));
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const row = await new SshHostKeys(ctx.dataSource, new AuditWriter(ctx.dataSource)).accept(org, null, where.host, where.port, optional(args, 'fingerprint'));
    console.log(`Accepted host key ${row.fingerprint} for ${where.name}.`);
  },
};

export const listHostKeysCommand: AdminCommand = {
  name: 'list-host-keys',
  usage: 'list-host-keys [--org NAME]',
  summary: 'Show the SSH host keys recorded for an organisation, and any key a host presented and was refused for',
  async run(ctx, args) {
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const rows = await new SshHostKeys(ctx.dataSource, new AuditWriter(ctx.dataSource)).listInOrg(org);
    if (rows.length === 0) console.log('No SSH host keys recorded.');
    for (const row of rows) {
      const refused = row.refused_fingerprint ? `  REFUSED ${row.refused_fingerprint} at ${new Date(row.refused_at!).toISOString()}` : '';
      console.log(`${row.host}:${row.port}  ${row.key_type || '-'}  ${row.fingerprint}  (${row.source})${refused}`);
    }
  },
};
