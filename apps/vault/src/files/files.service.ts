import { Injectable } from '@nestjs/common';
import { Actor } from '@app/audit';
import { AccountSecretGate, Locator } from '@app/gate';
import { AppError, FileReply } from '@app/http';
import { DownloadFileDto } from './download.dto';

// The newest file of the account, or of a file custom field (of the resource or the account).
const ACCOUNT_FILE = `(SELECT f.id FROM stored_files f WHERE f.account_id = a.id AND f.custom_field_id IS NULL ORDER BY f.id DESC LIMIT 1)`;
const CUSTOM_FIELD_FILE = `(SELECT f.id FROM stored_files f JOIN custom_fields cf ON cf.id = f.custom_field_id
  WHERE cf.resource_id = r.id AND cf.account_id IS NOT DISTINCT FROM $13::int AND lower(cf.label) = lower($14::text) ORDER BY f.id DESC LIMIT 1)`;

/**
 * Op 19: the exact bytes of an account's file or of a file custom field. In a File Store
 * or License Store the file is the secret, so the download goes through the same gate as
 * a password read (access control, check-out, help-desk restriction, reason and ticket).
 */
@Injectable()
export class FilesService {
  constructor(private readonly gate: AccountSecretGate) {}

  async download(actor: Actor, resourceId: number, accountId: number, dto: DownloadFileDto): Promise<FileReply> {
    const locator: Locator = dto.ISCUSTOMFIELD
      ? {
          key: 'custom_field_file',
          sql: CUSTOM_FIELD_FILE,
          params: [customFieldAccount(dto, accountId), customFieldLabel(dto)],
          missing: `No file is stored in custom field ${dto.CUSTOMFIELDLABEL}`,
        }
      : { key: 'account_file', sql: ACCOUNT_FILE, params: [] };
    const access = { use: 'download' as const, resourceId, accountId, reason: dto.REASON, ticketId: dto.TICKETID };
    const what = dto.ISCUSTOMFIELD ? `custom field ${dto.CUSTOMFIELDLABEL}: ` : '';
    const file = await this.gate.openFile(actor, access, locator, what);
    return new FileReply(file.content, file.fileName, file.contentType);
  }
}

function customFieldLabel(dto: DownloadFileDto): string {
  if (!dto.CUSTOMFIELDLABEL?.trim()) throw AppError.invalid('CUSTOMFIELDLABEL is required when ISCUSTOMFIELD is TRUE');
  return dto.CUSTOMFIELDLABEL.trim();
}

function customFieldAccount(dto: DownloadFileDto, accountId: number): number | null {
  if (!dto.CUSTOMFIELDTYPE) throw AppError.invalid('CUSTOMFIELDTYPE (ACCOUNT or RESOURCE) is required when ISCUSTOMFIELD is TRUE');
  return dto.CUSTOMFIELDTYPE === 'RESOURCE' ? null : accountId;
}
