import { Injectable } from '@nestjs/common';
import { basename } from 'node:path';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { PkiSecretGate, pkiSecretTarget } from '@app/gate';
import { AppError, FileReply } from '@app/http';
import { KeyVaultKeyDto } from './key-vault-input';
import { KeyVaultRepository, KeyVaultRow } from './key-vault.repository';
import { pkiTime } from './pki-time';

export const CONTENT_CONTEXT = 'key_vault_keys.content';
export const PASSPHRASE_CONTEXT = 'key_vault_keys.passphrase';

export interface UploadedKeyFile {
  buffer: Buffer;
  originalname?: string;
}

/** The key vault (spec ops 13-17): arbitrary key files, sealed at rest, exported byte for byte. */
@Injectable()
export class KeyVaultService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: KeyVaultRepository,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly gate: PkiSecretGate,
  ) {}

  async list(actor: Actor): Promise<Record<string, unknown>[]> {
    return (await this.keys.listInOrg(actor.orgId)).map(keyRecord);
  }

  async add(actor: Actor, dto: KeyVaultKeyDto, file: UploadedKeyFile | undefined): Promise<string> {
    const content = requireFile(file);
    await this.dataSource.transaction(async (m) => {
      const id = await this.keys.insert(m, {
        orgId: actor.orgId,
        name: dto.keyName,
        ...descriptive(dto),
        fileName: fileNameOf(file!, dto.keyName),
        content: this.keyring.seal(content, CONTENT_CONTEXT),
        passphrase: dto.passphrase ? this.keyring.seal(dto.passphrase, PASSPHRASE_CONTEXT) : null,
        createdByName: actor.username,
      });
      if (id === undefined) throw AppError.conflict(`Key ${dto.keyName} already exists in the key vault`);
      await this.record(actor, AuditOperation.KeyVaultKeyAdded, dto.keyName, `Key ${dto.keyName} added to the key vault`, m);
    });
    return `Key ${dto.keyName} added successfully`;
  }

  /** Changes the fields sent; a new File replaces the stored content. */
  async update(actor: Actor, dto: KeyVaultKeyDto, file: UploadedKeyFile | undefined): Promise<string> {
    if (file && file.buffer.length === 0) throw AppError.invalid('The uploaded key file (part File) is empty');
    await this.dataSource.transaction(async (m) => {
      const key = await this.keys.lockInOrg(m, actor.orgId, dto.keyName);
      if (!key) throw AppError.notFound(`Key ${dto.keyName} does not exist in the key vault`);
      await this.keys.update(m, actor.orgId, key.id, {
        ...descriptive(dto),
        ...(file ? { content: this.keyring.seal(file.buffer, CONTENT_CONTEXT), fileName: fileNameOf(file, key.name) } : {}),
        ...(dto.passphrase ? { passphrase: this.keyring.seal(dto.passphrase, PASSPHRASE_CONTEXT) } : {}),
      });
      await this.record(actor, AuditOperation.KeyVaultKeyUpdated, key.name, `Key ${key.name} updated in the key vault`, m);
    });
    return `Key ${dto.keyName} updated successfully`;
  }

  async export(actor: Actor, name: string): Promise<FileReply> {
    const key = await this.keys.findInOrg(actor.orgId, name);
    return this.gate.release(actor, pkiSecretTarget('key-vault-key', name, key, { notFound: `Key ${name} does not exist in the key vault` }), async (m) => {
      const content = await this.keyring.open(await this.keys.readContent(actor.orgId, key!.id, m), CONTENT_CONTEXT);
      return new FileReply(content, key!.file_name, 'application/octet-stream');
    });
  }

  async delete(actor: Actor, name: string): Promise<string> {
    await this.dataSource.transaction(async (m) => {
      const key = await this.keys.lockInOrg(m, actor.orgId, name);
      if (!key) throw AppError.notFound(`Key ${name} does not exist in the key vault`);
      await this.keys.delete(m, actor.orgId, key.id);
      await this.record(actor, AuditOperation.KeyVaultKeyDeleted, key.name, `Key ${key.name} deleted from the key vault`, m);
    });
    return `Key ${name} deleted successfully`;
  }

  private async record(actor: Actor, operation: string, name: string, description: string, m = this.dataSource.manager): Promise<void> {
    await this.audit.record({ category: 'Pki', operation, actor, target: name, description }, m);
  }
}

function keyRecord(row: KeyVaultRow): Record<string, unknown> {
  return {
    Description: row.description,
    'Key Name': row.name,
    'Created Time': pkiTime(row.created_at),
    Datacenter: row.datacenter,
    'Instance Name': row.instance_name,
    'Key Type': row.key_type,
    'Created By': row.created_by_name,
    'Key Store ID': row.id,
  };
}

function descriptive(dto: KeyVaultKeyDto) {
  return { description: dto.description, datacenter: dto.datacenter, instanceName: dto.instanceName, keyType: dto.keyType };
}

function requireFile(file: UploadedKeyFile | undefined): Buffer {
  if (!file || file.buffer.length === 0) throw AppError.invalid('File is required: upload the key file in the part named File');
  return file.buffer;
}

function fileNameOf(file: UploadedKeyFile, keyName: string): string {
  const name = basename((file.originalname ?? '').replace(/\\/g, '/')).trim();
  return name || keyName;
}
