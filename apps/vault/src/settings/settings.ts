import { EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { REFUSAL_MESSAGES } from '@app/gate';

/** Server settings of one organisation; all default to off. */
export interface VaultSettings {
  /** A REASON must accompany every password read, change and file download. */
  reasonRequired: boolean;
  /** A TICKETID must accompany every password read, change and file download. */
  ticketingEnabled: boolean;
  /** Every console user signs in with a TOTP second factor (administrators always do). */
  totpForEveryone: boolean;
}

interface SettingDefinition {
  /** The name operators type (admin CLI, docs). */
  name: string;
  /** The settings table key. */
  key: string;
  property: keyof VaultSettings;
  summary: string;
}

export const SETTING_DEFINITIONS: readonly SettingDefinition[] = [
  { name: 'reason-required', key: 'reason_required', property: 'reasonRequired', summary: 'REASON required to read, change or download a secret' },
  { name: 'ticketing', key: 'ticketing_enabled', property: 'ticketingEnabled', summary: 'TICKETID required to read, change or download a secret' },
  { name: 'totp-for-everyone', key: 'totp_for_everyone', property: 'totpForEveryone', summary: 'Every console user needs a TOTP second factor (administrators always do)' },
];

export const DEFAULT_SETTINGS: VaultSettings = { reasonRequired: false, ticketingEnabled: false, totpForEveryone: false };

export function findSetting(name: string): SettingDefinition | undefined {
  const wanted = name.trim().toLowerCase().replace(/_/g, '-');
  return SETTING_DEFINITIONS.find((d) => d.name === wanted || d.key.replace(/_/g, '-') === wanted);
}

export async function readSettings(m: EntityManager, orgId: number): Promise<VaultSettings> {
  const rows: { key: string; value: unknown }[] = await m.query('SELECT key, value FROM settings WHERE org_id = $1', [orgId]);
  const settings = { ...DEFAULT_SETTINGS };
  for (const row of rows) {
    const definition = SETTING_DEFINITIONS.find((d) => d.key === row.key);
    if (definition) settings[definition.property] = row.value === true;
  }
  return settings;
}

/** Stores one setting with its audit row, in the caller's transaction. */
export async function writeSetting(
  m: EntityManager,
  audit: AuditWriter,
  orgId: number,
  definition: SettingDefinition,
  value: boolean,
  actor: Actor | null,
  via: string,
): Promise<void> {
  await m.query(
    `INSERT INTO settings (org_id, key, value, updated_at) VALUES ($1, $2, $3::jsonb, now())
     ON CONFLICT (org_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [orgId, definition.key, JSON.stringify(value)],
  );
  await audit.record(
    {
      category: 'User',
      operation: AuditOperation.SettingChanged,
      orgId,
      actor,
      target: definition.name,
      description: `${definition.name} set to ${value} (${via})`,
    },
    m,
  );
}

/** Why a secret may not be released without more input; undefined when nothing is missing. */
export function missingJustification(settings: VaultSettings, reason?: string, ticketId?: string): string | undefined {
  if (settings.reasonRequired && !reason?.trim()) return REFUSAL_MESSAGES.REASON;
  if (settings.ticketingEnabled && !ticketId?.trim()) return REFUSAL_MESSAGES.TICKETID;
  return undefined;
}
