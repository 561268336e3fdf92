import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { AppError } from '@app/http';
import { CertificateError } from '../certs';
import { mayManageServerWideCas } from '../cert-service';
import { AllowedDomainsDto, CreateEabKeyDto } from './acme-admin.dto';
import { CreatedEabKey, createEabKey, EabError, setAllowedDomains } from './eab-keys';

/** The administrators' side of ACME: EAB keys and each CA's allowed domains (HTTP; the admin CLI calls the same functions). */
@Injectable()
export class AcmeAdminService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
  ) {}

  createEabKey(actor: Actor, dto: CreateEabKeyDto): Promise<CreatedEabKey> {
    return refusals(() =>
      this.dataSource.transaction((m) =>
        createEabKey(m, this.keyring, this.audit, { orgId: actor.orgId, caName: dto.caName, template: dto.templateName, createdBy: actor }),
      ),
    );
  }

  setAllowedDomains(actor: Actor, dto: AllowedDomainsDto): Promise<string[]> {
    const domains = (dto.allowedDomains ?? '').split(',');
    return refusals(() =>
      this.dataSource.transaction(async (m) => {
        const serverWide = await mayManageServerWideCas(m, actor);
        const forOrg = await organisationNamed(m, dto.orgName, actor, serverWide);
        return setAllowedDomains(m, this.audit, { orgId: actor.orgId, forOrg, caName: dto.caName, domains, actor, serverWide });
      }),
    );
  }
}

/** orgName: another organisation, named only by the provider's super administrators (otherwise as if it did not exist). */
async function organisationNamed(m: EntityManager, name: string | undefined, actor: Actor, serverWide: boolean): Promise<{ id: number; name: string } | undefined> {
  if (!name?.trim() || name.trim().toLowerCase() === actor.orgName.toLowerCase()) return undefined;
  const [org] = serverWide ? await m.query('SELECT id, name FROM organizations WHERE lower(name) = lower($1)', [name.trim()]) : [];
  if (!org) throw new EabError(`No organisation named ${name.trim().slice(0, 100)}`);
  return org;
}

async function refusals<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof EabError) {
      throw error.kind === 'invalid' ? AppError.invalid(error.message) : error.kind === 'forbidden' ? AppError.forbidden(error.message) : AppError.notFound(error.message);
    }
    // An unknown templateName.
    if (error instanceof CertificateError) throw AppError.invalid(error.message);
    throw error;
  }
}
