import { AuditWriter } from '@app/audit';
import { AccountSecretGate } from '@app/gate';
import { DirectoryConfig } from '../../apps/vault/src/directory/directory-config';
import { DirectorySync } from '../../apps/vault/src/directory/directory-sync';
import { ConfigureDirectoryDto } from '../../apps/vault/src/directory/directory.dto';
import { optional, required } from './args';
import { AdminCommand } from './command';
import { AdminContext, orgId } from './context';

async function services(ctx: AdminContext) {
  const audit = new AuditWriter(ctx.dataSource);
  const config = new DirectoryConfig(ctx.dataSource, audit, new AccountSecretGate(ctx.dataSource, await ctx.keyring(), audit));
  return { config, sync: new DirectorySync(ctx.dataSource, audit, config) };
}

export const directoryCommand: AdminCommand = {
  name: 'directory',
  usage: 'directory --resource R [--user-base DN] [--user-filter F] [--group-base DN] [--group-filter F] [--default-role ROLE] [--role-map JSON] [--sync-interval S] [--org O]',
  summary: 'Configure sign-in with Active Directory through a Windows Domain resource: a test bind and search first (audited)',
  async run(ctx, args) {
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const interval = optional(args, 'sync-interval');
    const dto: ConfigureDirectoryDto = {
      RESOURCENAME: required(args, 'resource'),
      USERBASE: optional(args, 'user-base'),
      USERFILTER: optional(args, 'user-filter'),
      GROUPBASE: optional(args, 'group-base'),
      GROUPFILTER: optional(args, 'group-filter'),
      DEFAULTROLE: optional(args, 'default-role'),
      ROLEMAP: optional(args, 'role-map'),
      SYNCINTERVAL: interval === undefined ? undefined : Number(interval),
    };
    if (dto.SYNCINTERVAL !== undefined && !(Number.isInteger(dto.SYNCINTERVAL) && dto.SYNCINTERVAL >= 0)) throw new Error('--sync-interval must be whole seconds, 0 or more');
    const answer = await (await services(ctx)).config.configure(null, org, dto, 'admin CLI');
    const d = answer.details as Record<string, string>;
    console.log(`Directory configured: users under ${d.USERBASE} (${d.USERSFOUND} found), groups under ${d.GROUPBASE} (${d.GROUPSFOUND} found).`);
  },
};

export const directorySyncCommand: AdminCommand = {
  name: 'directory-sync',
  usage: 'directory-sync [--org O]',
  summary: 'Synchronise users and groups from the directory now (audited as the system)',
  async run(ctx, args) {
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const { config, sync } = await services(ctx);
    const row = await config.find(org);
    if (!row) throw new Error('No directory is configured for this organisation');
    const result = await sync.sync(row, 'admin CLI');
    console.log(Object.entries(result).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') || '-' : v}`).join('\n'));
  },
};
