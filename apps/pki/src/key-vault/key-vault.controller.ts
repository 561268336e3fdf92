import { Controller, Delete, Get, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, listReply, Operation, reply, UploadedPart } from '@app/http';
import { SecretPath } from '@app/gate';
import { KeyNameDto, KeyVaultKeyDto, KeyVaultService } from '@app/pki/key-vault';

/** The key vault (spec ops 13-17). */
@ApiLayout('pki')
@Controller('api/pki/restapi')
export class KeyVaultController {
  constructor(private readonly keyVault: KeyVaultService) {}

  @Get('getAllKeyStoreKeys')
  @Operation('getAllKeyStoreKeys', Permission.PkiRead)
  async list(@CurrentActor() actor: Actor) {
    return listReply('Key store keys fetched successfully', await this.keyVault.list(actor));
  }

  @Post('exportKeyStoreKey')
  // A pki secret: PkiSecretGate decides (pki.manage, organisation) and audits, refusals included.
  @Operation('ExportKeyStoreKey', Permission.PkiRead)
  @SecretPath('export')
  export(@CurrentActor() actor: Actor, @Input(KeyNameDto) dto: KeyNameDto) {
    return this.keyVault.export(actor, dto.keyName);
  }

  @Delete('deleteKeyStoreKey')
  @Operation('DeleteKeyStoreKey', Permission.PkiManage)
  async delete(@CurrentActor() actor: Actor, @Input(KeyNameDto) dto: KeyNameDto) {
    return reply(await this.keyVault.delete(actor, dto.keyName));
  }

  @Post('addKeyStoreKey')
  @Operation('AddKeyStoreKey', Permission.PkiManage, { capitalResult: true })
  async add(@CurrentActor() actor: Actor, @Input(KeyVaultKeyDto) dto: KeyVaultKeyDto, @UploadedPart('File') file?: Express.Multer.File) {
    return reply(await this.keyVault.add(actor, dto, file));
  }

  @Post('updateKeyStoreKey')
  @Operation('UpdateKeyStoreKey', Permission.PkiManage, { capitalResult: true })
  async update(@CurrentActor() actor: Actor, @Input(KeyVaultKeyDto) dto: KeyVaultKeyDto, @UploadedPart('File') file?: Express.Multer.File) {
    return reply(await this.keyVault.update(actor, dto, file));
  }
}
