import { Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { PkiSecretGate } from '@app/gate';
import { AppError } from '@app/http';
import { enumerateLoginUsers, keptLoginUsers, MAX_LOGIN_USERS, normalizeHostKeyFingerprint, SshHostKeys, type SshTarget, verifySshLogin } from '..';
import { parseResourceName } from './resource-address';
import { mapSshErrors } from './ssh-errors';
import type { ApplyCredentialsDto, EnumerateUsersDto } from './ssh-input';
import { SshResourceRepository, type SshResourceRow, type SshUserRow } from './ssh-resource.repository';

export const LOGIN_PASSWORD_CONTEXT = 'ssh_resources.login_password';
const CONNECT_TIMEOUT_MS = 15_000;

/** SSH hosts: the credentials we log in with, and the login users found on them. */
@Injectable()
export class SshResourcesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly resources: SshResourceRepository,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly hostKeys: SshHostKeys,
    private readonly gate: PkiSecretGate,
  ) {}

  /** The organisation's SSH resources, each with the host key fingerprint recorded for its host and port ('' if none yet). */
  async list(actor: Actor): Promise<Array<SshResourceRow & { host_key_fingerprint: string }>> {
    const [rows, pins] = await Promise.all([this.resources.listInOrg(actor.orgId), this.hostKeys.fingerprintsInOrg(actor.orgId)]);
    return rows.map((row) => ({ ...row, host_key_fingerprint: pins.get(SshHostKeys.lookupKey(hostOfName(row.name), row.port)) ?? '' }));
  }

  listUsers(actor: Actor): Promise<SshUserRow[]> {
    return this.resources.listUsersInOrg(actor.orgId);
  }

  /** The name a resource is stored under: `host` or `host:port`, whichever way it was written. */
  canonicalName(input: string): string {
    return parseResourceName(input).name;
  }

  async require(actor: Actor, input: string): Promise<SshResourceRow> {
    let canonical = input;
    try {
      canonical = this.canonicalName(input);
    } catch {
      // Not a host[:port]: it can only match a stored name as written.
    }
    const resource = (await this.resources.findInOrg(actor.orgId, canonical)) ?? (await this.resources.findInOrg(actor.orgId, input));
    if (!resource) throw AppError.notFound(`SSH resource ${input} does not exist`);
    return resource;
  }

  /** Locks the resource for a change on its host (see SshResourceRepository.lockInOrg). */
  async lockForHostChange(m: EntityManager, actor: Actor, input: string): Promise<SshResourceRow> {
    const resource = await this.require(actor, input);
    const locked = await this.resources.lockById(m, actor.orgId, resource.id);
    if (!locked) throw AppError.notFound(`SSH resource ${input} does not exist`);
    return locked;
  }

  /**
   * How we log in to the resource, from its stored (sealed) credentials: the only place they
   * are opened, after the gate's use decision (audited as `Password Used`, naming `purpose`).
   */
  async targetOf(actor: Actor, resource: SshResourceRow, purpose: string, m?: EntityManager): Promise<SshTarget> {
    const sealed = await this.resources.readLoginPassword(resource.org_id, resource.id, m);
    const login = resource.login_user;
    if (!login || !sealed) {
      throw AppError.invalid(`No credentials have been applied to SSH resource ${resource.name}; use applycredentials first`);
    }
    const password = await this.gate.useLogin(actor, { id: resource.id, orgId: resource.org_id, name: resource.name, login }, purpose, () =>
      this.keyring.openText(sealed, LOGIN_PASSWORD_CONTEXT),
    );
    return {
      host: parseResourceName(resource.name).host,
      port: resource.port,
      orgId: resource.org_id,
      actor,
      username: login,
      password,
      timeoutMs: CONNECT_TIMEOUT_MS,
    };
  }

  /**
   * Logs in with the credentials first (and, for an administrator, checks root or sudo);
   * only credentials that work are stored. Creates the resource when it is new.
   */
  async applyCredentials(actor: Actor, dto: ApplyCredentialsDto): Promise<string> {
    const where = parseResourceName(dto.resourceName);
    const target: SshTarget = {
      host: where.host,
      port: where.port,
      orgId: actor.orgId,
      actor,
      expectedHostKey: expectedHostKey(dto.HOSTKEYFINGERPRINT),
      username: dto.userName,
      password: dto.password,
      timeoutMs: CONNECT_TIMEOUT_MS,
    };
    await mapSshErrors(() => verifySshLogin(target, dto.isAdmin ?? false), `Credentials for ${where.name} were not applied`);
    const address = await resolveAddress(where.host);
    await this.dataSource.transaction(async (m) => {
      const saved = await this.resources.saveCredentials(m, actor.orgId, where.name, where.port, {
        address,
        userName: dto.userName,
        password: this.keyring.seal(dto.password, LOGIN_PASSWORD_CONTEXT),
        isAdmin: dto.isAdmin ?? false,
      });
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.SshCredentialsApplied,
          actor,
          target: where.name,
          description: `Credentials of ${dto.userName}${dto.isAdmin ? ' (administrator)' : ''} applied to ${saved.created ? 'new ' : ''}SSH resource ${where.name}`,
        },
        m,
      );
    });
    return where.name;
  }

  /** Logs in, reads the login users and records exactly those. */
  async enumerateUsers(actor: Actor, dto: EnumerateUsersDto): Promise<{ resource: SshResourceRow; users: string[]; skipped: string }> {
    const resource = await this.require(actor, dto.resourceName);
    if (dto.userName && resource.login_user && dto.userName !== resource.login_user) {
      throw AppError.invalid(`The credentials applied to ${resource.name} are for ${resource.login_user}, not ${dto.userName}; use applycredentials first`);
    }
    const target = await this.targetOf(actor, resource, 'enumerate login users');
    const found = await mapSshErrors(() => enumerateLoginUsers(target), `Enumerating users on ${resource.name} failed`);
    const { users, invalid, beyondLimit } = keptLoginUsers(found);
    const skipped = [invalid && `${invalid} invalid user name${invalid > 1 ? 's' : ''} skipped`, beyondLimit && `${beyondLimit} beyond the limit of ${MAX_LOGIN_USERS} not recorded`]
      .filter(Boolean)
      .join('; ');
    await this.dataSource.transaction(async (m) => {
      await this.resources.replaceUsers(m, actor.orgId, resource.id, users);
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.SshUsersEnumerated,
          actor,
          target: resource.name,
          description: `${users.length} login users found on ${resource.name}${skipped ? `; ${skipped}` : ''}`,
        },
        m,
      );
    });
    return { resource, users, skipped };
  }
}

/** The address shown as IPADDRESS; a name that does not resolve was still reachable, so keep it. */
async function resolveAddress(host: string): Promise<string> {
  try {
    return (await lookup(host)).address;
  } catch {
    return host;
  }
}

/** HOSTKEYFINGERPRINT as given, checked for shape; absent means trust on first use. */
export function expectedHostKey(input: string | undefined): string | undefined {
  if (!input?.trim()) return undefined;
  const fingerprint = normalizeHostKeyFingerprint(input);
  if (!fingerprint) throw AppError.invalid('HOSTKEYFINGERPRINT must be a SHA256 fingerprint as ssh-keygen -lf prints it (SHA256: followed by 43 base64 characters)');
  return fingerprint;
}

/** A stored resource name's host; a name that is not host[:port] is its own host. */
function hostOfName(name: string): string {
  try {
    return parseResourceName(name).host;
  } catch {
    return name;
  }
}
