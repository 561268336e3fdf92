import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { DEFAULT_POLICY_NAME } from '@app/crypto';
import { Keyring } from '@app/crypto';
import { AppError, listReply, reply, Reply } from '@app/http';
import { bool } from '../common/format';
import { resourceVisibleSql, visibilityParams } from '../common/visibility';
import { PoliciesService } from '../policies/policies.service';
import { CustomFieldInput, parseCustomFields } from './custom-fields';
import { CreateResourceDto, ResourceSearchDto } from './resource.dto';

/** SEARCHCOLUMN values clients send, mapped to columns. */
const SEARCH_COLUMNS: Record<string, string> = {
  RESOURCENAME: 'r.name',
  RESOURCEDESCRIPTION: 'r.description',
  RESOURCETYPE: 'r.type',
  DNSNAME: 'r.dns_name',
  DEPARTMENT: 'r.department',
  LOCATION: 'r.location',
  RESOURCEURL: 'r.url',
};

export const PASSWORD_CONTEXT = 'accounts.password';

@Injectable()
export class ResourcesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly policies: PoliciesService,
  ) {}

  async list(actor: Actor, search: ResourceSearchDto): Promise<Reply> {
    const params: unknown[] = visibilityParams(actor);
    let filter = '';
    if (search.SEARCHVALUE) {
      const column = SEARCH_COLUMNS[(search.SEARCHCOLUMN ?? 'RESOURCENAME').toUpperCase()];
      if (!column) {
        throw AppError.invalid(`SEARCHCOLUMN must be one of: ${Object.keys(SEARCH_COLUMNS).join(', ')}`);
      }
      params.push(`%${search.SEARCHVALUE.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      filter = `AND ${column} ILIKE $4`;
    }
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT r.id, r.name, r.type, r.description, (SELECT count(*) FROM accounts a WHERE a.resource_id = r.id) AS n
       FROM resources r WHERE ${resourceVisibleSql('r', '$1', '$2', '$3')} ${filter} ORDER BY r.name, r.id`,
      params,
    );
    return listReply(
      'Resources fetched successfully',
      rows.map((r) => ({
        'RESOURCE ID': String(r.id),
        'RESOURCE NAME': r.name,
        'RESOURCE TYPE': r.type,
        'RESOURCE DESCRIPTION': r.description,
        NOOFACCOUNTS: String(r.n),
      })),
    );
  }

  async create(actor: Actor, dto: CreateResourceDto): Promise<Reply> {
    const resourceFields = parseCustomFields(dto.RESOURCECUSTOMFIELD, 'resource');
    const accountFields = parseCustomFields(dto.ACCOUNTCUSTOMFIELD, 'account');
    const resourcePolicy = (await this.policies.require(actor.orgId, dto.RESOURCEPASSWORDPOLICY ?? DEFAULT_POLICY_NAME, 'RESOURCEPASSWORDPOLICY')).name;
    const accountPolicy = dto.ACCOUNTPASSWORDPOLICY
      ? (await this.policies.require(actor.orgId, dto.ACCOUNTPASSWORDPOLICY, 'ACCOUNTPASSWORDPOLICY')).name
      : resourcePolicy;
    await this.dataSource.transaction(async (m) => {
      const [existing] = await m.query('SELECT id FROM resources WHERE org_id = $1 AND name_key = lower($2)', [
        actor.orgId,
        dto.RESOURCENAME,
      ]);
      if (existing) throw AppError.conflict(`Resource ${dto.RESOURCENAME} already exists`);
      const [resource] = await m.query(
        `INSERT INTO resources (org_id, owner_id, name, name_key, type, description, dns_name, url, department, location, notes, password_policy)
         VALUES ($1, $2, $3, lower($3), $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
        [
          actor.orgId, actor.id, dto.RESOURCENAME, dto.RESOURCETYPE, dto.RESOURCEDESCRIPTION ?? '', dto.DNSNAME ?? '',
          dto.RESOURCEURL ?? '', dto.DEPARTMENT ?? '', dto.LOCATION ?? '', dto.NOTES ?? '', resourcePolicy,
        ],
      );
      const [account] = await m.query(
        `INSERT INTO accounts (resource_id, name, name_key, notes, password_policy, password, password_changed_at)
         VALUES ($1, $2, lower($2), $3, $4, $5, now()) RETURNING id`,
        [resource.id, dto.ACCOUNTNAME, dto.NOTES ?? '', accountPolicy, this.keyring.seal(dto.PASSWORD, PASSWORD_CONTEXT)],
      );
      await insertCustomFields(m, resource.id, null, resourceFields);
      await insertCustomFields(m, resource.id, account.id, accountFields);
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.ResourceCreated,
          actor,
          resourceId: resource.id,
          resourceName: dto.RESOURCENAME,
          accountId: account.id,
          accountName: dto.ACCOUNTNAME,
        },
        m,
      );
    });
    return reply(`Resource ${dto.RESOURCENAME} has been added successfully`);
  }

  async accountList(actor: Actor, resourceId: number): Promise<Reply> {
    const resource = await this.findVisible(actor, resourceId);
    const accounts: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT a.id, a.name, a.notes, a.password_policy, a.is_favourite FROM accounts a WHERE a.resource_id = $1 ORDER BY a.name, a.id`,
      [resourceId],
    );
    const fields = await customFieldsOf(this.dataSource.manager, resourceId, null);
    return reply('Resource details with account list fetched successfully', {
      'RESOURCE ID': String(resource.id),
      'RESOURCE NAME': resource.name,
      'RESOURCE DESCRIPTION': resource.description,
      'RESOURCE TYPE': resource.type,
      'DNS NAME': resource.dns_name,
      'RESOURCE URL': resource.url,
      DEPARTMENT: resource.department,
      LOCATION: resource.location,
      'RESOURCE OWNER': resource.owner_name,
      'RESOURCE PASSWORD POLICY': resource.password_policy,
      PASSWORDREQUEST_REASON_MANDATORY: 'false',
      'CUSTOM FIELD': fields,
      'ACCOUNT LIST': accounts.map((a) => ({
        'ACCOUNT ID': String(a.id),
        'ACCOUNT NAME': a.name,
        PASSWDID: String(a.id),
        'PASSWORD STATUS': '****',
        'ACCOUNT PASSWORD POLICY': a.password_policy,
        ACCOUNT_DESCRIPTION: a.notes,
        ISFAVPASS: bool(a.is_favourite as boolean),
        ISREASONREQUIRED: 'false',
        IS_TICKETID_REQD: 'false',
        IS_TICKETID_REQD_MANDATORY: 'false',
        IS_TICKETID_REQD_ACW: 'false',
      })),
    });
  }

  /** The resource if the caller may see it; otherwise the same answer as a missing one. */
  async findVisible(actor: Actor, resourceId: number): Promise<Record<string, unknown>> {
    const [resource] = await this.dataSource.query(
      `SELECT r.*, u.username AS owner_name FROM resources r JOIN users u ON u.id = r.owner_id
       WHERE r.id = $4 AND ${resourceVisibleSql('r', '$1', '$2', '$3')}`,
      [...visibilityParams(actor), resourceId],
    );
    if (!resource) throw AppError.notFound('No such resource found');
    return resource;
  }
}

async function insertCustomFields(
  m: EntityManager,
  resourceId: number,
  accountId: number | null,
  fields: CustomFieldInput[],
): Promise<void> {
  for (const [position, f] of fields.entries()) {
    await m.query(
      'INSERT INTO custom_fields (resource_id, account_id, label, value, type, position) VALUES ($1, $2, $3, $4, $5, $6)',
      [resourceId, accountId, f.label, f.value, f.type, position],
    );
  }
}

export async function customFieldsOf(
  m: EntityManager,
  resourceId: number,
  accountId: number | null,
): Promise<Record<string, string>[]> {
  const rows: { label: string; value: string; type: string }[] = await m.query(
    `SELECT label, value, type FROM custom_fields WHERE resource_id = $1 AND account_id IS NOT DISTINCT FROM $2 ORDER BY position`,
    [resourceId, accountId],
  );
  return rows.map((f) => ({ CUSTOMFIELDLABEL: f.label, CUSTOMFIELDVALUE: f.value, CUSTOMFIELDTYPE: f.type }));
}
