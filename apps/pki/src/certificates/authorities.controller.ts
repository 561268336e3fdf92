import { Controller, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import {
  CertificateAuthoritiesService, certReplies, CreateCaDto, DeployCertificateDto, DeploymentService, DeploymentTargetDto,
} from '@app/pki/cert-service';

/** deployCertificate and two extra operations (docs/api/pki.md): createCA, saveDeploymentTarget. */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class AuthoritiesController {
  constructor(
    private readonly cas: CertificateAuthoritiesService,
    private readonly deployment: DeploymentService,
  ) {}

  @Post('createCA')
  @Operation('CreateCA', Permission.PkiManage)
  async createCa(@CurrentActor() actor: Actor, @Input(CreateCaDto) dto: CreateCaDto) {
    return certReplies.caCreated(await this.cas.create(actor, dto));
  }

  @Post('saveDeploymentTarget')
  @Operation('SaveDeploymentTarget', Permission.PkiManage)
  async saveTarget(@CurrentActor() actor: Actor, @Input(DeploymentTargetDto) dto: DeploymentTargetDto) {
    return certReplies.targetSaved(dto.serverName, (await this.deployment.saveTarget(actor, dto)).created);
  }

  @Post('deployCertificate')
  @Operation('DeployCertificate', Permission.PkiManage)
  async deploy(@CurrentActor() actor: Actor, @Input(DeployCertificateDto) dto: DeployCertificateDto) {
    return certReplies.deployed(await this.deployment.deploy(actor, dto));
  }
}
