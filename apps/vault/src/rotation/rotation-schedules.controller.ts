import { Controller, Get, Param, Put, Req } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Operation, ParsedRequest, readField } from '@app/http';
import { parseId } from '../common/ids';
import { parseRotationSchedule } from './rotation-schedule';
import { RotationSchedulesService } from './rotation-schedules.service';

/** Scheduled password rotation per resource group (issue 26). */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/resourcegroup/:gid/passwordrotation')
export class RotationSchedulesController {
  constructor(private readonly schedules: RotationSchedulesService) {}

  @Put()
  @Operation('CONFIGURE PASSWORD ROTATION', Permission.ResourceGroupManage)
  configure(@CurrentActor() actor: Actor, @Param('gid') gid: string, @Req() req: ParsedRequest) {
    return this.schedules.configure(actor, parseId(gid, 'resource group id'), (current) => parseRotationSchedule((name) => readField(req, name), current));
  }

  @Get()
  @Operation('GET PASSWORD ROTATION', Permission.ResourceRead)
  show(@CurrentActor() actor: Actor, @Param('gid') gid: string) {
    return this.schedules.show(actor, parseId(gid, 'resource group id'));
  }
}
