import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, auditInsertFrom, auditValues, AuditWriter } from '@app/audit';
import { DEFAULT_POLICY_NAME, Keyring } from '@app/crypto';
import { AppError, ParsedRequest, reply, Reply } from '@app/http';
import { findResource } from '../common/access';
import { filePartFor, safeFileName, storeFile } from '../files/file-store';
import { ComplianceVerdict, verdictOf } from '../passwords/compliance';
import { PoliciesService } from '../policies/policies.service';
import { CustomFieldInput, insertCustomFields, isFileField, mergeCustomFields, parseCustomFields } from './custom-fields';
import { resolveOwner } from './owner';
import { CreateResourceDto, EditResourceDto } from './resource.dto';
import { joinStaticGroup } from './resource-groups';
import { NewAccount, newAccountOf } from './new-account';
import { canonicalType, checkTypeChange, DEFAULT_RESOURCE_TYPE, isFileType } from './resource-types';
import { AccountSecretGate, bindDestinations, guardMembershipMoves, PASSWORD_CONTEXT, resourceDestinations, withMoves } from '@app/gate';
import { pgPool, prepared } from '@app/persistence';

// A name already taken inserts nothing, and then neither does the rest.
const CREATE_ALONE = `WITH resource AS (
    INSERT INTO resources (org_id, owner_id, name, name_key, type, description, dns_name, url, department, location, notes, password_policy)
    VALUES ($1, $2, $3, lower($3), $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (org_id, name_key) DO NOTHING RETURNING id),
  account AS (
    INSERT INTO accounts (resource_id, name, name_key, notes, password_policy, password, password_changed_at, compliance_policy, compliance_problems)
    SELECT id, $12, lower($12), $10, $13, $14, now(), $13, $15 FROM resource RETURNING id AS account_id, resource_id),
  logged AS (${auditInsertFrom(16, 'account')})
  SELECT resource_id, account_id FROM account`;

/** Create (op 6), edit (op 17a) and delete (ops 8, 9) of resources, each audited in its transaction. */
/** CREATE RESOURCE's answer: COMPAT's message, and the new ids (as the look-ups give them) so a client needs no second call. */
function createdReply(name: string, ids: { resourceId: number; accountId: number | null }): Reply {
  return reply(`Resource ${name} has been added successfully`, {
    RESOURCEID: String(ids.resourceId),
    ...(ids.accountId === null ? {} : { ACCOUNTID: String(ids.accountId) }),
  });
}

@Injectable()
export class ResourceWriter {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly policies: PoliciesService,
    private readonly gate: AccountSecretGate,
  ) {}

  async create(actor: Actor, dto: CreateResourceDto, file: Express.Multer.File | undefined, req?: ParsedRequest): Promise<Reply> {
    const type = canonicalType(dto.RESOURCETYPE || DEFAULT_RESOURCE_TYPE);
    if (file && !isFileType(type)) {
      throw AppError.invalid(`A file can only be stored in a File Store or License Store resource, not in ${type}`);
    }
    const resourceFields = parseCustomFields(dto.RESOURCECUSTOMFIELD, 'resource');
    const accountFields = parseCustomFields(dto.ACCOUNTCUSTOMFIELD, 'account');
    const filePart = (f: CustomFieldInput) => (isFileField(f) ? filePartFor(req, f.label, f.value) : undefined);
    const resourceFiles = resourceFields.map(filePart);
    const accountFiles = accountFields.map(filePart);
    const resourcePolicy = await this.policies.require(actor.orgId, dto.RESOURCEPASSWORDPOLICY ?? DEFAULT_POLICY_NAME, 'RESOURCEPASSWORDPOLICY');
    const accountPolicy = dto.ACCOUNTPASSWORDPOLICY ? await this.policies.require(actor.orgId, dto.ACCOUNTPASSWORDPOLICY, 'ACCOUNTPASSWORDPOLICY') : resourcePolicy;
    const account = newAccountOf(dto, accountPolicy, accountFields.length ? 'ACCOUNTCUSTOMFIELD' : file ? 'A file' : undefined);
    const verdict = account && verdictOf(accountPolicy, accountPolicy.name, account.password);
    const alone = account && verdict && !file && !resourceFields.length && !accountFields.length && !dto.OWNERNAME && !dto.RESOURCEGROUPNAME;
    if (alone) {
      return createdReply(dto.RESOURCENAME, await this.createAlone(actor, dto, account, type, resourcePolicy.name, verdict));
    }
    const ids = await this.dataSource.transaction(async (m) => {
      const owner = await resolveOwner(m, actor, dto.OWNERNAME);
      const [existing] = await m.query('SELECT id FROM resources WHERE org_id = $1 AND name_key = lower($2)', [actor.orgId, dto.RESOURCENAME]);
      if (existing) throw AppError.conflict(`Resource ${dto.RESOURCENAME} already exists`);
      const [resource] = await m.query(
        `INSERT INTO resources (org_id, owner_id, name, name_key, type, description, dns_name, url, department, location, notes, password_policy)
         VALUES ($1, $2, $3, lower($3), $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
        [
          actor.orgId, owner.id, dto.RESOURCENAME, type, dto.RESOURCEDESCRIPTION ?? '', dto.DNSNAME ?? '',
          dto.RESOURCEURL ?? '', dto.DEPARTMENT ?? '', dto.LOCATION ?? '', dto.NOTES ?? '', resourcePolicy.name,
        ],
      );
      const [created] = account && verdict
        ? await m.query(
            `INSERT INTO accounts (resource_id, name, name_key, notes, password_policy, password, password_changed_at, compliance_policy, compliance_problems)
             VALUES ($1, $2, lower($2), $3, $4, $5, now(), $4, $6) RETURNING id`,
            [resource.id, account.name, dto.NOTES ?? '', verdict.policy, this.keyring.seal(account.password, PASSWORD_CONTEXT), verdict.problems],
          )
        : [undefined];
      await this.storeCustomFields(m, resource.id, null, resourceFields, resourceFiles);
      // newAccountOf refused account fields and a file without an account.
      if (created) await this.storeCustomFields(m, resource.id, created.id, accountFields, accountFiles);
      if (file && created) await storeFile(m, this.keyring, { resourceId: resource.id, accountId: created.id }, file);
      // Created under another owner, the creator keeps full access through a share.
      if (owner.id !== actor.id) {
        await m.query(`INSERT INTO shares (resource_id, user_id, access_type) VALUES ($1, $2, 'fullaccess')`, [resource.id, actor.id]);
      }
      if (dto.RESOURCEGROUPNAME) await joinStaticGroup(m, this.audit, actor, dto.RESOURCEGROUPNAME, resource.id);
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.ResourceCreated,
          actor,
          resourceId: resource.id,
          resourceName: dto.RESOURCENAME,
          accountId: created?.id ?? null,
          accountName: account?.name ?? '',
          description: [
            owner.id !== actor.id ? `owner ${owner.username}` : '',
            dto.RESOURCEGROUPNAME ? `group ${dto.RESOURCEGROUPNAME}` : '',
            file ? 'with a file' : '',
          ].filter(Boolean).join('; '),
        },
        m,
      );
      return { resourceId: resource.id as number, accountId: (created?.id as number | undefined) ?? null };
    });
    return createdReply(dto.RESOURCENAME, ids);
  }

  /**
   * The usual creation (the caller owns it, no custom fields, file or group): resource,
   * account and audit row in one statement, so one round trip and no transaction around it.
   */
  private async createAlone(
    actor: Actor,
    dto: CreateResourceDto,
    account: NewAccount,
    type: string,
    resourcePolicy: string,
    verdict: ComplianceVerdict,
  ): Promise<{ resourceId: number; accountId: number }> {
    const created = await prepared<{ resource_id: number; account_id: number }>(pgPool(this.dataSource), 'resource_create_alone', CREATE_ALONE, [
      actor.orgId, actor.id, dto.RESOURCENAME, type, dto.RESOURCEDESCRIPTION ?? '', dto.DNSNAME ?? '', dto.RESOURCEURL ?? '',
      dto.DEPARTMENT ?? '', dto.LOCATION ?? '', dto.NOTES ?? '', resourcePolicy,
      account.name, verdict.policy, this.keyring.seal(account.password, PASSWORD_CONTEXT), verdict.problems,
      ...auditValues({
        category: 'Resource',
        operation: AuditOperation.ResourceCreated,
        actor,
        resourceName: dto.RESOURCENAME,
        accountName: account.name,
        description: '',
      }),
    ]);
    if (!created.length) throw AppError.conflict(`Resource ${dto.RESOURCENAME} already exists`);
    return { resourceId: created[0].resource_id, accountId: created[0].account_id };
  }

  /**
   * Op 17a. Full access to the resource; an edit that changes where its stored credentials
   * are sent also needs the gate's 'redirect' decision on its administrator account, and one
   * that moves it into or out of a rule-based resource group needs the right to edit that
   * group (guardMembershipMoves). Refusals change nothing.
   */
  async edit(actor: Actor, resourceId: number, dto: EditResourceDto): Promise<Reply> {
    const fields = parseCustomFields(dto.RESOURCECUSTOMFIELD, 'resource');
    const policy = dto.RESOURCEPASSWORDPOLICY
      ? (await this.policies.require(actor.orgId, dto.RESOURCEPASSWORDPOLICY, 'RESOURCEPASSWORDPOLICY')).name
      : undefined;
    await this.gate.transaction(actor, async (m) => {
      const resource = await findResource(m, actor, resourceId, 'fullaccess', true);
      const type = dto.RESOURCETYPE ? canonicalType(dto.RESOURCETYPE) : resource.type;
      checkTypeChange(resource.type, type);
      const name = dto.RESOURCENAME || resource.name;
      if (name.toLowerCase() !== resource.name.toLowerCase()) {
        const [clash] = await m.query('SELECT id FROM resources WHERE org_id = $1 AND name_key = lower($2)', [resource.org_id, name]);
        if (clash) throw AppError.conflict(`Resource ${name} already exists`);
      }
      const dnsName = dto.DNSNAME ?? resource.dns_name;
      const before = await resourceDestinations(m, resource.id);
      const { moves } = await guardMembershipMoves(m, actor, [resource.id], () =>
        m.query(
          `UPDATE resources SET name = $2, name_key = lower($2), type = $3, description = $4, url = $5, dns_name = $6,
             location = $7, department = $8, notes = $9, password_policy = $10, updated_at = now() WHERE id = $1`,
          [
            resource.id, name, type, dto.RESOURCEDESCRIPTION ?? resource.description, dto.RESOURCEURL ?? resource.url,
            dnsName, dto.LOCATION ?? resource.location, dto.DEPARTMENT ?? resource.department,
            dto.NOTES ?? resource.notes, policy ?? resource.password_policy,
          ],
        ),
      );
      await mergeCustomFields(m, resource.id, null, fields, 'resource');
      // Where the server sends each account's password, by the one definition: if it moved,
      // that is a decision on every account (a refusal rolls all of this back).
      const after = await resourceDestinations(m, resource.id);
      const movedFrom = [...before].find(([id, text]) => after.get(id) !== text);
      const admin = movedFrom ? await this.gate.authorizeDestinationChange(m, actor, resource.id, { reason: dto.REASON, ticketId: dto.TICKETID }) : null;
      if (admin) await bindDestinations(m, this.audit, actor, resource.id, `EDIT RESOURCE by ${actor.username}`);
      const redirected = movedFrom
        ? `destination ${movedFrom[1]} -> ${after.get(movedFrom[0])}${admin ? ` (decided on every account, administrator ${admin.name})` : ''}`
        : '';
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.ResourceModified,
          actor,
          resourceId: resource.id,
          resourceName: name,
          reason: dto.REASON,
          ticketId: dto.TICKETID,
          description: withMoves([changedFields(dto), redirected].filter(Boolean).join('; '), moves),
        },
        m,
      );
    });
    // Two spaces: clients match the raw text of the original server.
    return reply('Resource  modified successfully.');
  }

  /** Deletes the resource with its accounts, secrets and files (FK cascades); the audit trail stays. */
  async delete(actor: Actor, resourceId: number): Promise<Reply> {
    const name = await this.dataSource.transaction(async (m) => {
      const resource = await findResource(m, actor, resourceId, 'fullaccess', true);
      await m.query('DELETE FROM resources WHERE id = $1', [resource.id]);
      await this.audit.record(
        { category: 'Resource', operation: AuditOperation.ResourceDeleted, actor, resourceId: resource.id, resourceName: resource.name },
        m,
      );
      return resource.name;
    });
    return reply(`Resource ${name} deleted successfully`, { RESOURCEID: String(resourceId) });
  }

  private async storeCustomFields(
    m: EntityManager,
    resourceId: number,
    accountId: number | null,
    fields: CustomFieldInput[],
    files: (Express.Multer.File | undefined)[],
  ): Promise<void> {
    const stored = fields.map((f, i) => (files[i] ? { ...f, value: safeFileName(files[i]!.originalname) } : f));
    const ids = await insertCustomFields(m, resourceId, accountId, stored);
    for (const [i, file] of files.entries()) {
      if (file) await storeFile(m, this.keyring, { resourceId, accountId, customFieldId: ids[i] }, file);
    }
  }
}

function changedFields(dto: EditResourceDto): string {
  const sent = Object.entries(dto).filter(([k, v]) => v !== undefined && k !== 'REASON' && k !== 'TICKETID').map(([k]) => k);
  return sent.length ? `changed ${sent.join(', ')}` : 'no change';
}

/** Where a resource's stored credentials are sent, as one comparable text: host (DNS name, else name) and type. */
