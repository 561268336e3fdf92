import { Controller, Get, Post, Req } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation, ParsedRequest, readInputData } from '@app/http';
import { GeneratePasswordDto, ValidatePasswordDto } from './policy.dto';
import { PoliciesService } from './policies.service';

@ApiLayout('vaultA')
@Controller('restapi/json/v1')
export class PoliciesController {
  constructor(private readonly policies: PoliciesService) {}

  @Get('passwords/generate')
  @Operation('GENERATE PASSWORD', Permission.ResourceRead)
  generate(@CurrentActor() actor: Actor, @Input(GeneratePasswordDto) dto: GeneratePasswordDto) {
    return this.policies.generate(actor, dto.POLICY);
  }

  @Post('passwords/validate')
  @Operation('VALIDATE PASSWORD', Permission.ResourceRead)
  validate(@CurrentActor() actor: Actor, @Input(ValidatePasswordDto) dto: ValidatePasswordDto) {
    return this.policies.validate(actor, dto.password, dto.passwordPolicy);
  }

  @Get('passwordpolicies')
  @Operation('GET PASSWORD POLICIES', Permission.ResourceRead)
  list(@CurrentActor() actor: Actor) {
    return this.policies.list(actor.orgId);
  }

  @Post('passwordpolicies')
  @Operation('ADD PASSWORD POLICY', Permission.PolicyManage)
  create(@CurrentActor() actor: Actor, @Req() req: ParsedRequest) {
    return this.policies.create(actor, readInputData(req));
  }
}
