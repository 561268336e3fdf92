import { AuditOperation, AuditWriter } from '@app/audit';
import { checkFieldName, defineField, fieldDefinitions, removeField } from '@app/pki/cert-service';
import { optional, required } from './args';
import { AdminCommand } from './command';
import { orgId } from './context';

/**
 * The additional fields of SSL certificates (KMP's updateSSLCertificateDetails and
 * updateSSLAdditionalFields set their values; no KMP operation defines them).
 */
export const listCertificateFieldsCommand: AdminCommand = {
  name: 'certificate-fields',
  usage: 'certificate-fields [--org O]',
  summary: 'List the additional fields defined for SSL certificates',
  async run(ctx, args) {
    const fields = await fieldDefinitions(ctx.dataSource.manager, await orgId(ctx.dataSource, optional(args, 'org')));
    if (fields.length === 0) console.log('No additional fields are defined.');
    for (const f of fields) console.log(`${f.name.padEnd(30)} ${f.options ? `one of: ${f.options.join(', ')}` : 'text'}`);
  },
};

export const certificateFieldCommand: AdminCommand = {
  name: 'certificate-field',
  usage: 'certificate-field --name N [--options a,b,c | --remove] [--org O]',
  summary: 'Define an additional field of SSL certificates (text, or a drop-down of --options), or remove it and its values (audited)',
  async run(ctx, args) {
    const name = checkFieldName(required(args, 'name'));
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const audit = new AuditWriter(ctx.dataSource);
    if (args.remove === true) {
      const removed = await ctx.dataSource.transaction(async (m) => {
        const gone = await removeField(m, org, name);
        if (gone) await audit.record({ category: 'Pki', operation: AuditOperation.SslAdditionalFieldRemoved, orgId: org, target: name, description: 'admin CLI' }, m);
        return gone;
      });
      if (!removed) throw new Error(`No additional field named ${name}`);
      console.log(`Additional field ${name} and its values are removed.`);
      return;
    }
    const optionsText = optional(args, 'options');
    const options = optionsText === undefined ? null : [...new Set(optionsText.split(',').map((o) => o.trim()).filter(Boolean))];
    if (options && options.length === 0) throw new Error('--options lists the drop-down choices, separated by commas');
    await ctx.dataSource.transaction(async (m) => {
      const created = await defineField(m, org, name, options);
      const kind = options ? `drop-down: ${options.join(', ')}` : 'text';
      await audit.record({ category: 'Pki', operation: AuditOperation.SslAdditionalFieldDefined, orgId: org, target: name, description: `${created ? 'defined' : 'redefined'} (${kind}; admin CLI)` }, m);
    });
    console.log(`Additional field ${name} is defined (${options ? `one of: ${options.join(', ')}` : 'text'}).`);
  },
};
