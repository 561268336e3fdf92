import { Controller, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, reply } from '@app/http';
import { AcmeAdminService, AllowedDomainsDto, CreateEabKeyDto } from '@app/pki/acme-service';

/** The documented extra operations that administer ACME (docs/api/pki.md, "ACME server"). */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class AcmeAdminController {
  constructor(private readonly admin: AcmeAdminService) {}

  @Post('createAcmeEabKey')
  @Operation('CreateAcmeEabKey', Permission.PkiManage)
  async createEabKey(@CurrentActor() actor: Actor, @Input(CreateEabKeyDto) dto: CreateEabKeyDto) {
    const key = await this.admin.createEabKey(actor, dto);
    return reply(`EAB key ${key.keyId} created for CA ${key.caName}. The HMAC key is shown only once.`, key);
  }

  @Post('setAcmeAllowedDomains')
  @Operation('SetAcmeAllowedDomains', Permission.PkiManage)
  async setAllowedDomains(@CurrentActor() actor: Actor, @Input(AllowedDomainsDto) dto: AllowedDomainsDto) {
    const domains = await this.admin.setAllowedDomains(actor, dto);
    const whose = dto.orgName?.trim() ? { orgName: dto.orgName.trim() } : {};
    return reply(`Allowed domains of CA ${dto.caName.trim()}: ${domains.length ? domains.join(', ') : 'none'}`, { caName: dto.caName.trim(), allowedDomains: domains, ...whose });
  }
}
