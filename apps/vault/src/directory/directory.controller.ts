import { Controller, Get, Post, Put } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, AppError, Input, Operation, reply } from '@app/http';
import { DirectoryConfig } from './directory-config';
import { ConfigureDirectoryDto } from './directory.dto';
import { DirectorySync } from './directory-sync';

/**
 * Sign-in with the directory and its synchronisation (docs/api/vault.md). Each bind is a use of
 * the Windows Domain resource's administrator password decided by the gate
 * (AccountSecretGate.openAdministrator): as the super administrator who configures it, as the
 * server for a synchronisation.
 */
@ApiLayout('vaultA')
@Controller('restapi/json/v1/directory')
export class DirectoryController {
  constructor(
    private readonly directories: DirectoryConfig,
    private readonly sync: DirectorySync,
  ) {}

  @Put()
  @Operation('CONFIGURE DIRECTORY', Permission.SettingsManage)
  configure(@CurrentActor() actor: Actor, @Input(ConfigureDirectoryDto) dto: ConfigureDirectoryDto) {
    return this.directories.configure(actor, actor.orgId, dto);
  }

  @Get()
  @Operation('GET DIRECTORY', Permission.SettingsManage)
  describe(@CurrentActor() actor: Actor) {
    return this.directories.describe(actor);
  }

  @Post('sync')
  @Operation('SYNC DIRECTORY', Permission.SettingsManage)
  async syncNow(@CurrentActor() actor: Actor) {
    const row = await this.directories.find(actor.orgId);
    if (!row) throw AppError.notFound('No directory is configured for this organisation');
    const result = await this.sync.sync(row, `synchronisation asked for by ${actor.username}`);
    return reply('Directory synchronised successfully', {
      ...Object.fromEntries(Object.entries(result).map(([k, v]) => [k.toUpperCase(), Array.isArray(v) ? v : String(v)])),
    });
  }
}
