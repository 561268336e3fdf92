import { accessControlCommand } from './access-control.commands';
import { acmeAllowedDomainsCommand, acmeEabKeyCommand } from './acme.commands';
import { verifyAuditCommand } from './audit.commands';
import { backupCommand, restoreCommand } from './backup.commands';
import { certificateFieldCommand, listCertificateFieldsCommand } from './certificate-fields.commands';
import { AdminCommand } from './command';
import { directoryCommand, directorySyncCommand } from './directory.commands';
import { migrateCommand, rotateMasterKeyCommand } from './keys.commands';
import { addPolicyCommand, listPoliciesCommand } from './policies.commands';
import { verifyRestoreCommand } from './restore.commands';
import { setSettingCommand, showSettingsCommand } from './settings.commands';
import { acceptHostKeyCommand, listHostKeysCommand } from './ssh.commands';
import {
  createApiUserCommand, createOrgCommand, createUserCommand, listUsersCommand, lockUserCommand, removeInitialTokenCommand, revokeTokenCommand, rotateTokenCommand, setLoginPasswordCommand, unlockUserCommand,
} from './users.commands';

// Every admin command; feature areas add theirs here.
export const COMMANDS: AdminCommand[] = [
  createApiUserCommand,
  createUserCommand,
  listUsersCommand,
  rotateMasterKeyCommand,
  migrateCommand,
  accessControlCommand,
  showSettingsCommand,
  setSettingCommand,
  listPoliciesCommand,
  addPolicyCommand,
  createOrgCommand,
  lockUserCommand,
  unlockUserCommand,
  rotateTokenCommand,
  revokeTokenCommand,
  removeInitialTokenCommand,
  setLoginPasswordCommand,
  verifyAuditCommand,
  acmeEabKeyCommand,
  acmeAllowedDomainsCommand,
  verifyRestoreCommand,
  backupCommand,
  restoreCommand,
  listHostKeysCommand,
  acceptHostKeyCommand,
  listCertificateFieldsCommand,
  certificateFieldCommand,
  directoryCommand,
  directorySyncCommand,
];
