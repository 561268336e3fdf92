import { Injectable, Logger } from '@nestjs/common';
import { DirectoryConfig } from './directory-config';
import { DirectorySync } from './directory-sync';

/**
 * A person's directory password at the console's sign-in: the organisation's directory (or
 * each, when the form names none) finds the user under its user search, their password binds
 * as them, and their vault user is the one linked to them (created at this first sign-in when
 * no import came first). A disabled or locked-out account does not sign in. Undefined for
 * every refusal, which the caller counts like a wrong password.
 */
@Injectable()
export class DirectorySignIn {
  private readonly logger = new Logger('DirectorySignIn');

  constructor(
    private readonly directories: DirectoryConfig,
    private readonly sync: DirectorySync,
  ) {}

  async authenticate(username: string, password: string, organisation: string): Promise<number | undefined> {
    if (!username.trim() || !password) return undefined;
    for (const row of await this.directories.all(organisation)) {
      let reader;
      try {
        reader = await this.directories.open(row, 'Directory sign-in: looking up the user', `console sign-in of ${username.trim()}`);
      } catch (error) {
        this.logger.warn(`Directory of organisation ${row.org_id} unavailable for a sign-in: ${(error as Error).message}`);
        continue;
      }
      try {
        const user = await reader.find(username.trim());
        if (!user) continue;
        const bind = await reader.passwordBinds(user, password);
        if (!bind.ok || user.barred) return undefined;
        return await this.sync.admit(row, user);
      } finally {
        await reader.close();
      }
    }
    return undefined;
  }
}
