import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { AppError, FileReply } from '@app/http';
import { generateSshKey, importSshPrivateKeyOffLoop, type SshKeyRecord } from '..';
import { SshAssociationsService } from './ssh-associations.service';
import { mapSshErrors } from './ssh-errors';
import type { CreateSshKeyDto } from './ssh-input';
import { SshKeyPool } from './ssh-key-pool';
import { SshKeyRepository, type SshKeyRow } from './ssh-key.repository';
import { PkiSecretGate, pkiSecretTarget } from '@app/gate';

export const PRIVATE_KEY_CONTEXT = 'ssh_keys.private_key';
export const PASSPHRASE_CONTEXT = 'ssh_keys.passphrase';

/** SSH keys: generation, import, export and deletion, sealed at rest and audited. */
@Injectable()
export class SshKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: SshKeyRepository,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly keyPool: SshKeyPool,
    private readonly associations: SshAssociationsService,
    private readonly gate: PkiSecretGate,
  ) {}

  list(actor: Actor): Promise<SshKeyRow[]> {
    return this.keys.listInOrg(actor.orgId);
  }

  async require(actor: Actor, name: string): Promise<SshKeyRow> {
    const key = await this.keys.findInOrg(actor.orgId, name);
    if (!key) throw AppError.notFound(`SSH key ${name} does not exist`);
    return key;
  }

  async create(actor: Actor, dto: CreateSshKeyDto): Promise<void> {
    await this.refuseTaken(actor, dto.keyName);
    const generated = await mapSshErrors(() =>
      generateSshKey(
        { type: dto.keyType || 'ssh-rsa', length: dto.length || null, comment: dto.comment || dto.keyName, passphrase: dto.passPhrase || null },
        { rsaPool: this.keyPool.pool },
      ),
    );
    await this.store(actor, dto.keyName, generated, dto.passPhrase || null, AuditOperation.SshKeyCreated);
  }

  async import(actor: Actor, keyName: string, file: { buffer: Buffer; size: number } | undefined, passphrase?: string): Promise<void> {
    if (!file || file.size === 0) throw AppError.invalid('File is required: upload the private key in the part named File');
    await this.refuseTaken(actor, keyName);
    const imported = await mapSshErrors(() => importSshPrivateKeyOffLoop(file.buffer, { passphrase: passphrase || null, comment: keyName }));
    await this.store(actor, keyName, imported, imported.encrypted ? passphrase || null : null, AuditOperation.SshKeyImported);
  }

  /** The key file as stored (the private key keeps its passphrase), or the public line. */
  async exportKey(actor: Actor, name: string, type: 'public' | 'private' = 'private'): Promise<FileReply> {
    if (type === 'public') {
      // Reading a public key is a read (auditors hold pki.read); it is audited all the same.
      const key = await this.require(actor, name);
      await this.audit.record({
        category: 'Pki',
        operation: AuditOperation.SshKeyExported,
        actor,
        target: key.name,
        description: `Public key of SSH key ${key.name} exported`,
      });
      return new FileReply(Buffer.from(`${key.public_key}\n`, 'utf8'), `${key.name}.pub`, 'text/plain; charset=utf-8');
    }
    const key = await this.keys.findInOrg(actor.orgId, name);
    return this.gate.release(actor, pkiSecretTarget('ssh-private-key', name, key, { notFound: `SSH key ${name} does not exist` }), async (m) => {
      const text = await this.keyring.openText((await this.keys.readSecrets(actor.orgId, key!.id, m)).private_key, PRIVATE_KEY_CONTEXT);
      return new FileReply(Buffer.from(text.endsWith('\n') ? text : `${text}\n`, 'utf8'), key!.name, 'application/octet-stream');
    });
  }

  async passphrase(actor: Actor, name: string): Promise<string> {
    const key = await this.keys.findInOrg(actor.orgId, name);
    return this.gate.release(actor, pkiSecretTarget('ssh-passphrase', name, key, { notFound: `SSH key ${name} does not exist` }), async (m) => {
      // Thrown after the decision, so the grant row rolls back with it: nothing was released.
      const sealed = (await this.keys.readSecrets(actor.orgId, key!.id, m)).passphrase;
      if (!sealed) throw AppError.notFound(`SSH key ${key!.name} has no passphrase`);
      return this.keyring.openText(sealed, PASSPHRASE_CONTEXT);
    });
  }

  /** Unless told otherwise, first takes the key off every host it was placed on. */
  async delete(actor: Actor, name: string, withoutDisassociation = false): Promise<void> {
    const key = await this.require(actor, name);
    if (!withoutDisassociation) await this.associations.removeEverywhere(actor, key);
    await this.dataSource.transaction(async (m) => {
      const locked = await this.keys.lockInOrg(m, actor.orgId, name, 'UPDATE');
      if (!locked) throw AppError.notFound(`SSH key ${name} does not exist`);
      if (!withoutDisassociation && (await this.associations.countOfKey(actor.orgId, locked.id, m)) > 0) {
        throw AppError.conflict(`SSH key ${locked.name} was associated again while it was being deleted; try again`);
      }
      await this.keys.delete(m, actor.orgId, locked.id);
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.SshKeyDeleted,
          actor,
          target: locked.name,
          description: `SSH key ${locked.name} deleted${withoutDisassociation ? ' without removing it from hosts' : ''}`,
        },
        m,
      );
    });
  }

  private async refuseTaken(actor: Actor, name: string): Promise<void> {
    if (await this.keys.findInOrg(actor.orgId, name)) throw AppError.conflict(`SSH key ${name} already exists`);
  }

  private async store(actor: Actor, name: string, key: SshKeyRecord, passphrase: string | null, operation: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const id = await this.keys.insert(m, {
        orgId: actor.orgId,
        name,
        keyType: key.type,
        keyLength: key.length,
        comment: key.comment,
        publicKey: key.publicKey,
        fingerprint: key.fingerprint,
        privateKey: this.keyring.seal(key.privateKey, PRIVATE_KEY_CONTEXT),
        passphrase: passphrase ? this.keyring.seal(passphrase, PASSPHRASE_CONTEXT) : null,
        createdBy: actor.id,
        createdByName: actor.username,
      });
      if (id === undefined) throw AppError.conflict(`SSH key ${name} already exists`);
      await this.audit.record(
        { category: 'Pki', operation, actor, target: name, description: `SSH key ${name} (${key.type} ${key.length}, ${key.fingerprint})` },
        m,
      );
    });
  }
}
