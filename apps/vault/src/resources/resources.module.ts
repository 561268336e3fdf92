import { Module } from '@nestjs/common';
import { AccountsController } from '../accounts/accounts.controller';
import { AccountsService } from '../accounts/accounts.service';
import { PasswordChanger } from '../passwords/password-changer';
import { PasswordReader } from '../passwords/password-reader';
import { PasswordsController } from '../passwords/passwords.controller';
import { PoliciesService } from '../policies/policies.service';
import { ResourcesController } from './resources.controller';
import { ResourcesService } from './resources.service';

/** Resources, accounts, passwords and policies (spec ops 1-9, 16-21). */
@Module({
  controllers: [ResourcesController, AccountsController, PasswordsController],
  providers: [ResourcesService, AccountsService, PasswordReader, PasswordChanger, PoliciesService],
  exports: [ResourcesService, PasswordReader, PasswordChanger, PoliciesService],
})
export class ResourcesModule {}
