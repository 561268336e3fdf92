import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { AppError, FileReply } from '@app/http';
import { findAccount } from '../common/access';
import { missingJustification, readSettings } from '../settings/settings';
import { DownloadFileDto } from './download.dto';
import { FILE_CONTEXT } from './file-store';

interface StoredFileRow {
  file_name: string;
  content_type: string;
  content: Buffer;
}

/** Op 19: the exact bytes of an account's file or of a file custom field, audited like a password read. */
@Injectable()
export class FilesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
  ) {}

  async download(actor: Actor, resourceId: number, accountId: number, dto: DownloadFileDto): Promise<FileReply> {
    const file = await this.dataSource.transaction(async (m) => {
      const account = await findAccount(m, actor, resourceId, accountId);
      const missing = missingJustification(await readSettings(m, account.org_id), dto.REASON, dto.TICKETID);
      if (missing) throw AppError.invalid(missing);
      const [row]: StoredFileRow[] = dto.ISCUSTOMFIELD
        ? await m.query(
            `SELECT f.file_name, f.content_type, f.content FROM stored_files f JOIN custom_fields c ON c.id = f.custom_field_id
             WHERE c.resource_id = $1 AND c.account_id IS NOT DISTINCT FROM $2 AND lower(c.label) = lower($3)`,
            [resourceId, customFieldAccount(dto, accountId), customFieldLabel(dto)],
          )
        : await m.query(
            'SELECT file_name, content_type, content FROM stored_files WHERE account_id = $1 AND custom_field_id IS NULL ORDER BY id DESC LIMIT 1',
            [accountId],
          );
      if (!row) {
        throw AppError.notFound(
          dto.ISCUSTOMFIELD ? `No file is stored in custom field ${dto.CUSTOMFIELDLABEL}` : `No file is stored for account ${account.name}`,
        );
      }
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.FileDownloaded,
          actor,
          resourceId: account.resource_id,
          resourceName: account.resource_name,
          accountId: account.id,
          accountName: account.name,
          reason: dto.REASON,
          ticketId: dto.TICKETID,
          description: dto.ISCUSTOMFIELD ? `custom field ${dto.CUSTOMFIELDLABEL}: ${row.file_name}` : row.file_name,
        },
        m,
      );
      return row;
    });
    return new FileReply(await this.keyring.open(file.content, FILE_CONTEXT), file.file_name, file.content_type);
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
