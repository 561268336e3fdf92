import { Controller, Post } from '@nestjs/common';
import { Actor } from '@app/audit';
import { CurrentActor, Permission } from '@app/auth';
import { ApiLayout, Input, Operation } from '@app/http';
import { fromPrefixB } from './new-user';
import { CreateUserBDto } from './user.dto';
import { UsersService } from './users.service';

/** Op 17 on the vault's prefix B (port 7272): the token, for an API user, in Details.AUTHTOKEN. */
@ApiLayout('vaultB')
@Controller('api/pki/restapi/user')
export class UsersPrefixBController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @Operation('CreateUser', Permission.UserManage, { detailsKey: 'Details' })
  create(@CurrentActor() actor: Actor, @Input(CreateUserBDto) dto: CreateUserBDto) {
    return this.users.create(actor, fromPrefixB(dto));
  }
}
