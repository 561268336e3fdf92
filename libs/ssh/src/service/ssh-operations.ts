import { Injectable } from '@nestjs/common';
import { Actor } from '@app/audit';
import { FileReply, listReply, reply, Reply } from '@app/http';
import { SshAssociationsService } from './ssh-associations.service';
import { SshDiscoveryService } from './ssh-discovery.service';
import { parseResourceName } from './resource-address';
import { SshHostKeys } from '..';
import type {
  AcceptHostKeyDto, ApplyCredentialsDto, AssociateKeyDto, CreateSshKeyDto, DeleteSshKeyDto, EnumerateUsersDto, ExportSshKeyDto,
  ImportSshKeyDto, SshDiscoveryDto, UserOnResourceDto,
} from './ssh-input';
import { SshKeysService } from './ssh-keys.service';
import { sshKeyRecord, sshResourceRecord, sshUserRecord } from './ssh-records';
import { SshResourcesService } from './ssh-resources.service';

/** Which service presents the operation: the pki service, or the vault's prefix-B subset. */
export type SshPresentation = 'pki' | 'vault';

/**
 * The SSH operations as both services answer them (messages and records); the
 * controllers add only routes, names and layouts.
 */
@Injectable()
export class SshOperations {
  constructor(
    private readonly keys: SshKeysService,
    private readonly resources: SshResourcesService,
    private readonly associations: SshAssociationsService,
    private readonly discovery: SshDiscoveryService,
    private readonly hostKeys: SshHostKeys,
  ) {}

  async createKey(actor: Actor, dto: CreateSshKeyDto): Promise<Reply> {
    await this.keys.create(actor, dto);
    return reply('New SSH key created successfully');
  }

  async importKey(actor: Actor, dto: ImportSshKeyDto, file: { buffer: Buffer; size: number } | undefined): Promise<Reply> {
    await this.keys.import(actor, dto.keyName, file, dto.passphrase);
    return reply(`SSH key ${dto.keyName} imported successfully`);
  }

  async listKeys(actor: Actor, presentation: SshPresentation): Promise<Reply> {
    const rows = await this.keys.list(actor);
    return listReply('SSH keys fetched successfully', rows.map((r) => sshKeyRecord(r, presentation === 'pki')));
  }

  async getKey(actor: Actor, keyName: string, presentation: SshPresentation): Promise<Reply> {
    const key = await this.keys.require(actor, keyName);
    return listReply(`SSH key ${key.name} fetched successfully`, [sshKeyRecord(key, presentation === 'pki')]);
  }

  exportKey(actor: Actor, dto: ExportSshKeyDto): Promise<FileReply> {
    return this.keys.exportKey(actor, dto.keyName, dto.keyExportType ?? 'private');
  }

  async passphrase(actor: Actor, keyName: string): Promise<Reply> {
    const passphrase = await this.keys.passphrase(actor, keyName);
    return reply(`Passphrase of SSH key ${keyName} fetched successfully`, { passphrase });
  }

  async deleteKey(actor: Actor, dto: DeleteSshKeyDto): Promise<Reply> {
    await this.keys.delete(actor, dto.key_name, dto.withoutDisassociation ?? false);
    return reply(`SSH key ${dto.key_name} deleted successfully`);
  }

  async applyCredentials(actor: Actor, dto: ApplyCredentialsDto): Promise<Reply> {
    const name = await this.resources.applyCredentials(actor, dto);
    return reply(`Credentials applied successfully to SSH resource ${name}`);
  }

  async listResources(actor: Actor): Promise<Reply> {
    return listReply('SSH resources fetched successfully', (await this.resources.list(actor)).map(sshResourceRecord));
  }

  async acceptHostKey(actor: Actor, dto: AcceptHostKeyDto): Promise<Reply> {
    const where = parseResourceName(dto.resourceName);
    const row = await this.hostKeys.accept(actor.orgId, actor, where.host, where.port, dto.HOSTKEYFINGERPRINT);
    return reply(`Host key ${row.fingerprint} accepted for ${where.name}`, { HOST: row.host, PORT: row.port, HOSTKEYFINGERPRINT: row.fingerprint });
  }

  async enumerateUsers(actor: Actor, dto: EnumerateUsersDto): Promise<Reply> {
    const { resource, users, skipped } = await this.resources.enumerateUsers(actor, dto);
    return reply(`User enumeration started for ${resource.name} and completed: ${users.length} login users found${skipped ? ` (${skipped})` : ''}`);
  }

  async listUsers(actor: Actor): Promise<Reply> {
    return listReply('SSH users fetched successfully', (await this.resources.listUsers(actor)).map(sshUserRecord));
  }

  async associate(actor: Actor, dto: AssociateKeyDto): Promise<Reply> {
    const resource = await this.associations.associate(actor, dto);
    return reply(`SSH key ${dto.keyName} associated successfully with ${dto.userName} on ${resource.name}`);
  }

  async dissociate(actor: Actor, dto: AssociateKeyDto): Promise<Reply> {
    const resource = await this.associations.dissociate(actor, dto);
    return reply(`SSH key ${dto.keyName} dissociated successfully from ${dto.userName} on ${resource.name}`);
  }

  async keysForUser(actor: Actor, dto: UserOnResourceDto): Promise<Reply> {
    const names = await this.associations.keyNamesFor(actor, dto.userName, dto.resourceName);
    return reply(`SSH keys of ${dto.userName} fetched successfully`, names.join(','));
  }

  async associatedUsers(actor: Actor): Promise<Reply> {
    return listReply('Associated users fetched successfully', (await this.associations.associatedUsers(actor)).map(sshUserRecord));
  }

  async discoverHosts(actor: Actor, dto: SshDiscoveryDto): Promise<Reply> {
    const result = await this.discovery.discoverRange(actor, dto);
    const total = Object.keys(result.entries).length;
    return {
      message: `SSH discovery completed: ${result.found} of ${total} addresses answered, ${result.added} new SSH resources added`,
      details: result.entries,
      totalRows: total,
    };
  }
}
