import { AuditWriter } from '@app/audit';
import { createEabKey, setAllowedDomains } from '@app/pki/acme-service';
import { optional, required } from './args';
import { AdminCommand } from './command';
import { orgId } from './context';

const CLI = { id: null, username: 'admin CLI' };

export const acmeEabKeyCommand: AdminCommand = {
  name: 'acme-eab-key',
  usage: 'acme-eab-key [--ca issuing-ca] [--template WebServer] [--org O]',
  summary: 'Create an ACME External Account Binding key (prints key id and HMAC key once)',
  async run(ctx, args) {
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const keyring = await ctx.keyring();
    const key = await ctx.dataSource.transaction((m) =>
      createEabKey(m, keyring, new AuditWriter(ctx.dataSource), { orgId: org, caName: optional(args, 'ca') ?? 'issuing-ca', template: optional(args, 'template'), createdBy: CLI }),
    );
    console.log(`CA:        ${key.caName} (profile ${key.template})`);
    console.log(`Directory: <pki URL>${key.directoryPath}`);
    console.log(`EAB kid:   ${key.keyId}`);
    console.log(`EAB HMAC:  ${key.hmacKey}`);
  },
};

export const acmeAllowedDomainsCommand: AdminCommand = {
  name: 'acme-allowed-domains',
  usage: 'acme-allowed-domains --domains "example.com,*.example.com,10.0.0.0/8" [--ca issuing-ca] [--org O]',
  summary: 'Set the names organisation O may have certificates for from CA C (signCSR and ACME on a built-in CA; ACME on its own CA; "*" = any name for signCSR; audited; "" allows none)',
  async run(ctx, args) {
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const domains = (args.domains === true ? '' : required(args, 'domains')).split(',');
    const caName = optional(args, 'ca') ?? 'issuing-ca';
    const set = await ctx.dataSource.transaction((m) => setAllowedDomains(m, new AuditWriter(ctx.dataSource), { orgId: org, caName, domains, actor: CLI, serverWide: true }));
    console.log(`Allowed domains of ${caName} for organisation ${optional(args, 'org') ?? 'Default'}: ${set.length ? set.join(', ') : 'none'}`);
  },
};
