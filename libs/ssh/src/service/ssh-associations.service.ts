import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError } from '@app/http';
import { addAuthorizedKey, RemoteHostError, removeAuthorizedKey, type SshTarget } from '..';
import { mapSshErrors } from './ssh-errors';
import type { AssociateKeyDto } from './ssh-input';
import { SshAssociationRepository } from './ssh-association.repository';
import { SshKeyRepository, type SshKeyRow } from './ssh-key.repository';
import type { SshResourceRow, SshUserRow } from './ssh-resource.repository';
import { SshResourcesService } from './ssh-resources.service';

/**
 * Keys placed in users' authorized_keys on hosts. The host is changed first, under the
 * resource's row lock; the record is written only when the host accepted the change,
 * in the same transaction as its audit row.
 */
@Injectable()
export class SshAssociationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly associations: SshAssociationRepository,
    private readonly keys: SshKeyRepository,
    private readonly resources: SshResourcesService,
    private readonly audit: AuditWriter,
  ) {}

  async associate(actor: Actor, dto: AssociateKeyDto): Promise<SshResourceRow> {
    return this.dataSource.transaction(async (m) => {
      const key = await this.lockKey(m, actor, dto.keyName);
      const resource = await this.resources.lockForHostChange(m, actor, dto.resourceName);
      const target = await this.resources.targetOf(actor, resource, `associate SSH key ${key.name} with ${dto.userName}`, m);
      await mapSshErrors(
        () => addAuthorizedKey(target, dto.userName, key.public_key),
        `SSH key ${key.name} was not associated with ${dto.userName} on ${resource.name}`,
      );
      await this.associations.add(m, actor.orgId, key.id, resource.id, dto.userName);
      await this.record(m, actor, AuditOperation.SshKeyAssociated, key, resource, dto.userName, 'associated with');
      return resource;
    });
  }

  async dissociate(actor: Actor, dto: AssociateKeyDto): Promise<SshResourceRow> {
    return this.dataSource.transaction(async (m) => {
      const key = await this.lockKey(m, actor, dto.keyName);
      const resource = await this.resources.lockForHostChange(m, actor, dto.resourceName);
      const recorded = await this.associations.exists(actor.orgId, key.id, resource.id, dto.userName, m);
      const target = await this.resources.targetOf(actor, resource, `dissociate SSH key ${key.name} from ${dto.userName}`, m);
      const changed = await this.removeFromHost(target, key, resource, dto.userName);
      if (!recorded && changed === 0) {
        throw AppError.notFound(`SSH key ${key.name} is not associated with ${dto.userName} on ${resource.name}`);
      }
      await this.associations.remove(m, actor.orgId, key.id, resource.id, dto.userName);
      await this.record(m, actor, AuditOperation.SshKeyDissociated, key, resource, dto.userName, 'dissociated from');
      return resource;
    });
  }

  /** Before a key is deleted: off every host, one association at a time, each recorded as it succeeds. */
  async removeEverywhere(actor: Actor, key: SshKeyRow): Promise<void> {
    for (const association of await this.associations.ofKey(actor.orgId, key.id)) {
      await this.dataSource.transaction(async (m) => {
        const resource = await this.resources.lockForHostChange(m, actor, association.resource_name);
        const target = await this.resources.targetOf(actor, resource, `remove SSH key ${key.name} from ${association.user_name} before its deletion`, m).catch((error: unknown) => {
          throw error instanceof AppError ? AppError.invalid(`SSH key ${key.name} was not deleted: ${error.message}`) : error;
        });
        await this.removeFromHost(target, key, resource, association.user_name, `SSH key ${key.name} was not deleted`);
        await this.associations.remove(m, actor.orgId, key.id, resource.id, association.user_name);
        await this.record(m, actor, AuditOperation.SshKeyDissociated, key, resource, association.user_name, 'dissociated from');
      });
    }
  }

  countOfKey(orgId: number, keyId: number, m?: EntityManager): Promise<number> {
    return this.associations.ofKey(orgId, keyId, m).then((rows) => rows.length);
  }

  async keyNamesFor(actor: Actor, userName: string, resourceName: string): Promise<string[]> {
    const resource = await this.resources.require(actor, resourceName);
    return this.associations.keyNamesFor(actor.orgId, resource.name, userName);
  }

  associatedUsers(actor: Actor): Promise<SshUserRow[]> {
    return this.associations.associatedUsersInOrg(actor.orgId);
  }

  /** Lines removed; a user or home that no longer exists has no key to remove. */
  private async removeFromHost(target: SshTarget, key: SshKeyRow, resource: SshResourceRow, userName: string, context?: string): Promise<number> {
    return mapSshErrors(async () => {
      try {
        return (await removeAuthorizedKey(target, userName, key.public_key)).changed;
      } catch (error) {
        if (error instanceof RemoteHostError && error.reason === 'not_found') return 0;
        throw error;
      }
    }, context ?? `SSH key ${key.name} was not dissociated from ${userName} on ${resource.name}`);
  }

  private async lockKey(m: EntityManager, actor: Actor, name: string): Promise<SshKeyRow> {
    // FOR SHARE: a deletion waits until this change on the host is recorded.
    const key = await this.keys.lockInOrg(m, actor.orgId, name, 'SHARE');
    if (!key) throw AppError.notFound(`SSH key ${name} does not exist`);
    return key;
  }

  private record(m: EntityManager, actor: Actor, operation: string, key: SshKeyRow, resource: SshResourceRow, userName: string, verb: string) {
    return this.audit.record(
      {
        category: 'Pki',
        operation,
        actor,
        target: `${userName}@${resource.name}`,
        description: `SSH key ${key.name} ${verb} ${userName} on ${resource.name}`,
      },
      m,
    );
  }
}
