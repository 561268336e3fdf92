import { Module } from '@nestjs/common';
import { AccountsController } from '../accounts/accounts.controller';
import { AccountsService } from '../accounts/accounts.service';
import { FilesController } from '../files/files.controller';
import { FilesService } from '../files/files.service';
import { ComplianceAssessor } from '../passwords/compliance-assessor';
import { ComplianceBackfill } from '../passwords/compliance-backfill';
import { PasswordChanger } from '../passwords/password-changer';
import { PasswordChangeLeanRoute } from '../passwords/password-change.lean-route';
import { PasswordReadLeanRoute } from '../passwords/password-read.lean-route';
import { PasswordReader } from '../passwords/password-reader';
import { PasswordsController } from '../passwords/passwords.controller';
import { PoliciesController } from '../policies/policies.controller';
import { PoliciesService } from '../policies/policies.service';
import { SettingsService } from '../settings/settings.service';
import { SharingController } from '../sharing/sharing.controller';
import { SharingService } from '../sharing/sharing.service';
import { ResourceCreateLeanRoute } from './resource-create.lean-route';
import { ResourceLookupService } from './resource-lookup.service';
import { ResourceWriter } from './resource-writer';
import { ResourcesController } from './resources.controller';
import { ResourcesService } from './resources.service';

/** Resources, accounts, passwords, policies, sharing and files (docs/api/vault.md). */
@Module({
  controllers: [ResourcesController, AccountsController, PasswordsController, PoliciesController, SharingController, FilesController],
  providers: [
    PasswordReadLeanRoute,
    PasswordChangeLeanRoute,
    ResourceCreateLeanRoute,
    ResourcesService,
    ResourceWriter,
    ResourceLookupService,
    AccountsService,
    PasswordReader,
    PasswordChanger,
    ComplianceAssessor,
    ComplianceBackfill,
    PoliciesService,
    SettingsService,
    SharingService,
    FilesService,
  ],
  exports: [ResourcesService, PasswordReader, PasswordChanger, PoliciesService, SettingsService, SharingService, ResourceWriter],
})
export class ResourcesModule {}
