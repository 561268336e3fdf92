import { Controller, Get } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { SecretPath } from '@app/gate';
import { PgpKeyDto, PgpKeysService } from '@app/pki/pgp';

/** Spec op 40. Private export additionally needs PkiManage (checked in the service). */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class PgpController {
  constructor(private readonly pgp: PgpKeysService) {}

  @Get('getPGPKey')
  @Operation('GetPGPKey', Permission.PkiRead)
  @SecretPath('export')
  export(@CurrentActor() actor: Actor, @Input(PgpKeyDto) dto: PgpKeyDto) {
    return this.pgp.exportKey(actor, dto);
  }
}
