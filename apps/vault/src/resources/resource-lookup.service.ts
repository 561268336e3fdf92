import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor } from '@app/audit';
import { AppError, listReply, reply, Reply } from '@app/http';
import { findResource } from '../common/access';
import { parseId } from '../common/ids';
import { resourceVisibleSql, visibilityParams } from '@app/gate';
import { PasswordReader } from '../passwords/password-reader';
import { KNOWN_RESOURCE_TYPES } from './resource-types';
import { ResourceAccountIdsDto } from './resource.dto';
import { resourceDetails } from './resources.service';

const IDS_MESSAGE = 'Resource ID and account ID fetched successfully for the given resource name and account name.';

/** Look-ups by name, the A2A details call and the type list; invisible rows answer like missing ones. */
@Injectable()
export class ResourceLookupService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reader: PasswordReader,
  ) {}

  async resourceId(actor: Actor, name: string): Promise<Reply> {
    return reply('Resource ID fetched successfully for the given resource name.', { RESOURCEID: String(await this.resourceIdByName(actor, name)) });
  }

  /** Names in paths may arrive '+'-encoded: an exact match wins, then '+' read as a space. */
  async resourceIdByName(actor: Actor, name: string): Promise<number> {
    for (const candidate of nameCandidates(name)) {
      const [row] = await this.dataSource.query(
        `SELECT r.id FROM resources r WHERE r.name_key = lower($4) AND ${resourceVisibleSql('r', '$1', '$2', '$3')}`,
        [...visibilityParams(actor), candidate],
      );
      if (row) return row.id;
    }
    throw AppError.notFound(`No resource named ${name} found`);
  }

  async resourceAndAccountIds(actor: Actor, resourceName: string, accountName: string): Promise<Reply> {
    for (const r of nameCandidates(resourceName)) {
      for (const a of nameCandidates(accountName)) {
        const [row] = await this.dataSource.query(
          `SELECT r.id AS rid, a.id AS aid FROM resources r JOIN accounts a ON a.resource_id = r.id
           WHERE r.name_key = lower($4) AND a.name_key = lower($5) AND ${resourceVisibleSql('r', '$1', '$2', '$3', { account: 'a' })}`,
          [...visibilityParams(actor), r, a],
        );
        if (row) return reply(IDS_MESSAGE, { RESOURCEID: String(row.rid), ACCOUNTID: String(row.aid) });
      }
    }
    throw AppError.notFound(`No account named ${accountName} found in a resource named ${resourceName}`);
  }

  /**
   * The A2A call of Ansible lookups: resource details plus ACCOUNTDETAILS, a JSON-encoded
   * string holding PASSWORD, or PASSWORD_REASON when the password cannot be released.
   */
  async accountDetails(actor: Actor, dto: ResourceAccountIdsDto): Promise<Reply> {
    const resourceId = parseId(dto.RESOURCEID, 'RESOURCEID');
    const accountId = parseId(dto.ACCOUNTID, 'ACCOUNTID');
    const release = await this.reader.release(actor, resourceId, accountId, dto.REASON, dto.TICKETID);
    const resource = await findResource(this.dataSource.manager, actor, resourceId);
    const [account] = await this.dataSource.query('SELECT id, name, notes FROM accounts WHERE id = $1', [accountId]);
    const accountDetails = {
      'ACCOUNT ID': String(account.id),
      'ACCOUNT NAME': account.name,
      PASSWDID: String(account.id),
      DESCRIPTION: account.notes,
      ...('password' in release ? { PASSWORD: release.password, ...(release.memberName ? { ACCOUNTNAME: release.memberName } : {}) } : { PASSWORD_REASON: release.message }),
    };
    const details = { RESOURCEDETAILS: resourceDetails(resource), ACCOUNTDETAILS: JSON.stringify(accountDetails) };
    if ('refusal' in release) return { message: release.message, details, status: 'Failed' };
    return reply('Resource and account details fetched successfully', details);
  }

  types(): Reply {
    return listReply('Resource types fetched successfully', KNOWN_RESOURCE_TYPES.map((t) => ({ 'RESOURCE TYPE': t })));
  }
}

function nameCandidates(name: string): string[] {
  const trimmed = name.trim();
  return trimmed.includes('+') ? [trimmed, trimmed.replace(/\+/g, ' ')] : [trimmed];
}
