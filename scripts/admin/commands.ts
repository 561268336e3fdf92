import { AdminCommand } from './command';
import { migrateCommand, rotateMasterKeyCommand } from './keys.commands';
import { createApiUserCommand, listUsersCommand } from './users.commands';

// Every admin command; feature areas add theirs here.
export const COMMANDS: AdminCommand[] = [
  createApiUserCommand,
  listUsersCommand,
  rotateMasterKeyCommand,
  migrateCommand,
];
