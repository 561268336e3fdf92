import { Allow } from 'class-validator';
import { OptionalInteger, OptionalText } from '@app/http';

/** PUT /restapi/json/v1/directory (docs/api/vault.md, Directory sign-in). */
export class ConfigureDirectoryDto {
  /** The Windows Domain resource whose remote-reset settings and administrator the directory binds with. */
  @OptionalText(255) RESOURCENAME?: string;
  @OptionalText(20) RESOURCEID?: string;
  @OptionalText(1000) USERBASE?: string;
  @OptionalText(2000) USERFILTER?: string;
  @OptionalText(1000) GROUPBASE?: string;
  @OptionalText(2000) GROUPFILTER?: string;
  @OptionalText(60) DEFAULTROLE?: string;
  /** Directory group to vault role: `{"Vault Admins": "Administrator"}` (a JSON object as text or as an object). */
  @Allow() ROLEMAP?: Record<string, string> | string;
  /** Seconds between synchronisations; 0: only on demand. */
  @OptionalInteger(0, 31 * 86_400) SYNCINTERVAL?: number;
}
