import { AuditWriter } from '@app/audit';
import { findSetting, readSettings, SETTING_DEFINITIONS, writeSetting } from '../../apps/vault/src/settings/settings';
import { optional, required } from './args';
import { AdminCommand } from './command';
import { orgId } from './context';

export const showSettingsCommand: AdminCommand = {
  name: 'settings',
  usage: 'settings [--org O]',
  summary: 'Show the vault settings (reason-required, ticketing, totp-for-everyone)',
  async run(ctx, args) {
    const settings = await readSettings(ctx.dataSource.manager, await orgId(ctx.dataSource, optional(args, 'org')));
    for (const d of SETTING_DEFINITIONS) console.log(`${d.name.padEnd(18)} ${String(settings[d.property]).padEnd(6)} ${d.summary}`);
  },
};

export const setSettingCommand: AdminCommand = {
  name: 'set-setting',
  usage: 'set-setting --name reason-required|ticketing|totp-for-everyone --value true|false [--org O]',
  summary: 'Change a vault setting (audited)',
  async run(ctx, args) {
    const definition = findSetting(required(args, 'name'));
    if (!definition) throw new Error(`--name must be one of: ${SETTING_DEFINITIONS.map((d) => d.name).join(', ')}`);
    const text = required(args, 'value').toLowerCase();
    if (text !== 'true' && text !== 'false') throw new Error('--value must be true or false');
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const audit = new AuditWriter(ctx.dataSource);
    await ctx.dataSource.transaction((m) => writeSetting(m, audit, org, definition, text === 'true', null, 'admin CLI'));
    console.log(`${definition.name} is now ${text}.`);
  },
};
